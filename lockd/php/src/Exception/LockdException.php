<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

/**
 * LockdException is the base of every error this client raises: lockd's
 * answers (its Connect code and its LockError reason, such as "LOCKED" or
 * "DEADLOCK") and the client's own findings (a loss it detected, a name its
 * query flags refuse). Each reason maps to one subclass (README.md has the
 * table); reason() names the exact one.
 */
class LockdException extends \RuntimeException
{
    /**
     * @param string       $reason      lockd's reason without "REASON_" ("LOCKED"), or the client's ("" when none)
     * @param string       $connectCode Connect's code ("failed_precondition"), "" when lockd did not answer
     * @param string       $id          the lock id the error is about, "" when none
     * @param list<string> $lostLockIds the lock handles lost (SESSION_EXPIRED, LOST)
     */
    public function __construct(
        string $message,
        private readonly string $reason = '',
        private readonly string $connectCode = '',
        private readonly string $id = '',
        private readonly array $lostLockIds = [],
        private readonly string $sessionId = '',
        ?\Throwable $previous = null,
    ) {
        parent::__construct($message, 0, $previous);
    }

    /** The reason lockd gave, without its "REASON_" prefix, or the client's; "" when none. */
    public function reason(): string
    {
        return $this->reason;
    }

    /** Connect's status code of lockd's answer ("aborted"), "" when the client raised it. */
    public function connectCode(): string
    {
        return $this->connectCode;
    }

    /** The lock id the error is about (the member that stopped a Lock; the id outside a prefix), "" when none. */
    public function id(): string
    {
        return $this->id;
    }

    /** @return list<string> the lock handles lost (SESSION_EXPIRED, LOST) */
    public function lostLockIds(): array
    {
        return $this->lostLockIds;
    }

    /** The session the error is about, "" when none. */
    public function sessionId(): string
    {
        return $this->sessionId;
    }
}
