<?php

declare(strict_types=1);

namespace Lockstep\Lockd;

/**
 * DeadlockMember is one wait of a deadlock cycle: which process waited for
 * which id in which access, the owner holding it, and the comment its caller
 * gave (lock($comment)). Accesses are lockd's names ("ACCESS_EXCLUSIVE",
 * "ACCESS_SHARED", ...).
 */
final class DeadlockMember
{
    public function __construct(
        public readonly string $process,
        public readonly string $waitsFor,
        public readonly string $waitsIn,
        public readonly string $heldBy,
        public readonly string $heldIn,
        public readonly string $comment,
    ) {
    }
}
