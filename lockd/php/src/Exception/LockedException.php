<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

/**
 * LockedException: LOCKED, another owner holds an id asked (id() names the
 * member). tryLock() returns Lock::CANNOT_LOCK instead of raising it.
 */
class LockedException extends LockdException
{
}
