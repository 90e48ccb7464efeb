<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

/**
 * TimeoutException: DEADLINE, lock()'s timeout (or lockd's --max-wait) passed
 * while it waited; nothing is held.
 */
class TimeoutException extends LockdException
{
}
