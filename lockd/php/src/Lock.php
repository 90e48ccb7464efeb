<?php

declare(strict_types=1);

namespace Lockstep\Lockd;

/**
 * Lock holds the results of LockQuery's calls (seed 003, Appendix A).
 *
 * lock() returns LOCKED or ALREADY_LOCKED; tryLock() those or CANNOT_LOCK;
 * unlock() UNLOCKED or NOT_LOCKED. ALREADY_LOCKED is lockd's
 * HeldLock.reentrant: the session's identity already held every member the
 * query names (the ids, and the intention locks a path takes on its
 * ancestors) in an access covering it, so the call only counted; it still
 * needs its own unlock().
 */
final class Lock
{
    public const LOCKED = 1;
    public const ALREADY_LOCKED = 2;
    public const CANNOT_LOCK = 3;
    public const UNLOCKED = 4;
    public const NOT_LOCKED = 5;

    private function __construct()
    {
    }
}
