<?php

declare(strict_types=1);

namespace Lockstep\Lockd;

use Lockstep\Lockd\Exception\LockdException;
use Lockstep\Lockd\Exception\LockedException;
use Lockstep\Lockd\Exception\LostException;
use Lockstep\Lockd\Exception\SessionExpiredException;
use Lockstep\Lockd\Exception\UnknownLockException;
use Lockstep\Lockd\Internal\Session;

/**
 * LockQuery is a set of (name, READ or WRITE) taken as one lock: all or
 * nothing (seed 003, Appendix A). LockManagerClient::getLockQuery makes it.
 *
 * Each successful lock() or tryLock() is one lock at lockd, with its own
 * handle; unlock() releases the latest. Not safe to share between processes
 * (nothing in PHP is); the client it came from must outlive it.
 */
final class LockQuery
{
    public const READ = 2;
    public const WRITE = 3;

    /** @var list<HeldLock> the locks this query holds, oldest first */
    private array $held = [];

    /**
     * @internal made by LockManagerClient::getLockQuery
     *
     * @param list<array{id: string, access: string}> $items
     */
    public function __construct(private readonly Session $session, private readonly array $items)
    {
    }

    /**
     * lock blocks until every name is held, and returns Lock::LOCKED, or
     * Lock::ALREADY_LOCKED when the session's identity already held them
     * all (it only counted). $timeout (seconds) bounds the wait, null for
     * lockd's --max-wait; the session is kept alive while it waits. On
     * failure nothing is held.
     *
     * @param string $comment names the unit of work in deadlock reports (at most 256 bytes)
     * @throws Exception\TimeoutException   the timeout passed
     * @throws Exception\DeadlockException  chosen to break a cycle of waits (its cycle())
     * @throws Exception\ConnectionException
     */
    public function lock(string $comment = '', ?float $timeout = null): int
    {
        if ($timeout !== null && !($timeout > 0)) {
            throw new Exception\InvalidRequestException("lockd client: lock(): timeout $timeout: want a positive number of seconds, or null for lockd's longest wait", 'INVALID_ARGUMENT');
        }
        return $this->took($this->session->lock($this->items, $comment, false, $timeout));
    }

    /**
     * tryLock takes every name at once, or returns Lock::CANNOT_LOCK when
     * another owner holds one (or waits ahead) and leaves nothing held.
     *
     * @throws Exception\ConnectionException
     */
    public function tryLock(string $comment = ''): int
    {
        try {
            return $this->took($this->session->lock($this->items, $comment, true, null));
        } catch (LockedException) {
            return Lock::CANNOT_LOCK;
        }
    }

    private function took(HeldLock $h): int
    {
        $this->held[] = $h;
        return $h->reentrant ? Lock::ALREADY_LOCKED : Lock::LOCKED;
    }

    /**
     * unlock releases the latest lock this query took: Lock::UNLOCKED, or
     * Lock::NOT_LOCKED when it holds none (never took one, or unlockAll()
     * released it). If the lock had been lost — lockd says LOST, or the
     * client found its time ran out (isLost()) — it is released all the
     * same and LostException is raised: the work it guarded may not have
     * been exclusive. After a ConnectionException the lock is still
     * counted held: call unlock() again.
     *
     * @throws LostException
     * @throws Exception\ConnectionException
     */
    public function unlock(): int
    {
        $h = array_pop($this->held);
        if ($h === null) {
            return Lock::NOT_LOCKED;
        }
        $ended = $this->session->ended();
        if ($ended !== null) {
            throw $ended;
        }
        if (!$this->session->holds($h->handle)) {
            return Lock::NOT_LOCKED;
        }
        $lostBefore = $this->session->lostReason($h->handle);
        try {
            $this->session->call('Unlock', ['lockId' => $h->handle]);
        } catch (UnknownLockException) {
            $this->session->forget($h->handle);
            return Lock::NOT_LOCKED;
        } catch (SessionExpiredException | LostException $e) {
            $this->session->forget($h->handle);
            throw $e;
        } catch (LockdException $e) {
            $this->held[] = $h; // to retry
            throw $e;
        }
        $this->session->forget($h->handle);
        if ($lostBefore !== null) {
            throw new LostException("lockd client: lock {$h->handle} had been lost before unlock() released it: $lostBefore", 'LOST', '', '', [$h->handle], $this->session->id);
        }
        return Lock::UNLOCKED;
    }

    /** isLocked says whether the query holds a lock (lost or not). */
    public function isLocked(): bool
    {
        foreach ($this->held as $h) {
            if ($this->session->holds($h->handle)) {
                return true;
            }
        }
        return false;
    }

    /**
     * isLost says whether a lock this query holds must be taken as lost: its
     * valid_for or the session's TTL passed without a KeepAlive renewing it,
     * or lockd said so in an answer. It reads the clock only; call the
     * client's keepAlive() between steps of long work to keep it false.
     */
    public function isLost(): bool
    {
        return $this->lostReason() !== null;
    }

    /**
     * check raises LostException if isLost(): call it between steps of the
     * work the lock guards.
     *
     * @throws LostException
     */
    public function check(): void
    {
        $why = $this->lostReason();
        if ($why !== null) {
            throw new LostException('lockd client: a lock of the query was lost: ' . $why . '; stop the work it guards', 'LOST', '', '', [], $this->session->id);
        }
    }

    private function lostReason(): ?string
    {
        foreach ($this->held as $h) {
            if (!$this->session->holds($h->handle) && $this->session->ended() === null) {
                continue; // released by unlockAll()
            }
            $why = $this->session->lostReason($h->handle);
            if ($why !== null) {
                return $why;
            }
        }
        return null;
    }

    /** The fencing token of the latest lock held, 0 when none (HeldLock::token). */
    public function token(): int
    {
        return $this->held === [] ? 0 : $this->held[count($this->held) - 1]->token;
    }

    /** @return list<string> the ids sent to lockd, in query order */
    public function ids(): array
    {
        return array_column($this->items, 'id');
    }

    /** @return list<HeldLock> the locks this query holds, oldest first */
    public function held(): array
    {
        return $this->held;
    }
}
