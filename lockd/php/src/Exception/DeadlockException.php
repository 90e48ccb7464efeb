<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

use Lockstep\Lockd\DeadlockMember;

/**
 * DeadlockException: DEADLOCK, this lock() was chosen to break a cycle of
 * waits (through other sessions, other lockds or Go processes) and released
 * what it took. cycle() lists the waits, this call's first. Release what the
 * unit of work holds (unlockAll()) and retry it, or take its names in one
 * query.
 */
class DeadlockException extends LockdException
{
    /** @var list<DeadlockMember> */
    private array $cycle = [];

    /** @param list<DeadlockMember> $cycle */
    public function withCycle(array $cycle): static
    {
        $this->cycle = $cycle;
        return $this;
    }

    /**
     * The cycle, starting with this call's wait: each member waits for an id
     * the next one holds, the last for one the first holds.
     *
     * @return list<DeadlockMember>
     */
    public function cycle(): array
    {
        return $this->cycle;
    }
}
