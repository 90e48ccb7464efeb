<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

/**
 * LostException: a lock was lost (LOST: its lease lapsed before unlock();
 * or the client found its valid_for or the session's TTL passed). The work
 * it guarded may not have been exclusive: stop it.
 */
class LostException extends LockdException
{
}
