<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

/**
 * TokenException: setToken() refused (INVALID_TOKEN, UNKNOWN_TOKEN, OWN_TOKEN,
 * HOLDS_LOCKS: unlockAll() first, OTHER_LOCKD). Nothing changed.
 */
class TokenException extends LockdException
{
}
