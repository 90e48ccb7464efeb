<?php

declare(strict_types=1);

namespace Lockstep\Lockd;

/**
 * HeldLock is one lock lockd granted: its handle (HeldLock.lock_id, what
 * Unlock names), the ids sent, its fencing token, and whether it only
 * counted (reentrant).
 */
final class HeldLock
{
    /** @param list<string> $ids the ids sent, in query order */
    public function __construct(
        public readonly string $handle,
        public readonly array $ids,
        public readonly int $token,
        public readonly bool $reentrant,
    ) {
    }

    /**
     * The fencing token, strictly increasing across owners of one id; 0 when
     * lockd runs without fencing or the lock has several members (a query of
     * several names, or a path, which takes intention locks on its
     * ancestors).
     */
    public function token(): int
    {
        return $this->token;
    }
}
