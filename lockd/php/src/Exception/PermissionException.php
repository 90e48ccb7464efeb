<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

/**
 * PermissionException: lockd refused the caller (UNAUTHENTICATED, NO_PREFIX,
 * NOT_YOUR_SESSION, NOT_YOUR_TOKEN, STORE_REFUSED). The message says what to
 * fix; nothing changed.
 */
class PermissionException extends LockdException
{
}
