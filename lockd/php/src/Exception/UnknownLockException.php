<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

/**
 * UnknownLockException: UNKNOWN_LOCK, lockd knows no such handle in the
 * session (released already). unlock() returns Lock::NOT_LOCKED instead.
 */
class UnknownLockException extends LockdException
{
}
