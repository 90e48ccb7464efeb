<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Internal;

use Lockstep\Lockd\Exception\LockdException;
use Lockstep\Lockd\Exception\LostException;
use Lockstep\Lockd\Exception\SessionExpiredException;
use Lockstep\Lockd\HeldLock;

/**
 * Session is one lockd session and its liveness: when to renew it, and when
 * each of its locks must be taken as lost. PHP runs no background thread,
 * so the session is renewed by calls: a KeepAlive before any call once one
 * is due, KeepAlives beside a blocking Lock while it waits (curl_multi, in
 * await), and keepAlive() when the caller calls it. The loss rules are the
 * Go client's (README.md, "When a lock counts as lost"):
 *
 *  - the session's deadline is the send of the last answered call naming it
 *    plus its TTL (lockd counts the TTL from its receipt, which is later);
 *    past it, the session is taken as lapsed and every lock as lost;
 *  - each lock's deadline is the send of the call that granted it, or of
 *    the last KeepAlive whose answer named it, plus that answer's valid_for
 *    (never more than the TTL); a KeepAlive answer that leaves a held lock
 *    out loses it at once (lockd names every lock whose lease is valid);
 *  - lockd's answers SESSION_EXPIRED and UNKNOWN_SESSION end the session,
 *    LOST on Unlock loses that lock.
 *
 * Deadlines are read from the clock (monotonic seconds) each time a loss is
 * asked about; no network call is needed to find one.
 *
 * @internal
 */
final class Session
{
    private float $deadline;
    /** @var array<string, float> each held lock's deadline, by handle */
    private array $lockDeadline = [];
    /** @var array<string, string> why a held lock was lost, by handle */
    private array $lost = [];
    private ?LockdException $ended = null;
    private float $nextRenew;

    private function __construct(
        private readonly Transport $t,
        public readonly string $id,
        public readonly float $ttl,
        float $sent,
        private readonly \Closure $clock,
    ) {
        $this->deadline = $sent + $ttl;
        $this->nextRenew = $sent + $ttl / 3;
    }

    /** open opens a session; $ttl null asks for lockd's default. */
    public static function open(Transport $t, ?float $ttl, string $name, \Closure $clock): self
    {
        $body = ['name' => $name];
        if ($ttl !== null) {
            $body['ttl'] = sprintf('%.6fs', $ttl);
        }
        $sent = $clock();
        $r = $t->call('OpenSession', $body);
        if ($r instanceof LockdException) {
            throw $r;
        }
        return new self($t, (string) ($r['sessionId'] ?? ''), Transport::seconds($r['ttl'] ?? null), $sent, $clock);
    }

    public function now(): float
    {
        return ($this->clock)();
    }

    /**
     * call makes a call naming the session (not Lock): a KeepAlive first if
     * one is due, then the call. Errors that end the session end it here.
     *
     * @param array<string, mixed> $body sessionId is added
     * @return array<string, mixed>
     */
    public function call(string $method, array $body = []): array
    {
        $this->ensureLive();
        $this->renewIfDue();
        $sent = $this->now();
        $r = $this->t->call($method, ['sessionId' => $this->id] + $body);
        if ($r instanceof LockdException) {
            $this->endIfExpired($r);
            throw $r;
        }
        $this->deadline = max($this->deadline, $sent + $this->ttl);
        return $r;
    }

    /**
     * lock takes items (lockd's LockItem JSON) as one lock: TryLock, or a
     * blocking Lock with KeepAlives beside its wait. A lock granted already
     * lost (a grant late in a long wait whose valid_for ran out) is
     * unlocked and raises LostException.
     *
     * @param list<array{id: string, access: string}> $items
     */
    public function lock(array $items, string $comment, bool $try, ?float $timeout): HeldLock
    {
        $this->ensureLive();
        $this->renewIfDue();
        $body = ['sessionId' => $this->id, 'items' => $items];
        if ($comment !== '') {
            $body['comment'] = $comment;
        }
        $sent = $this->now();
        $r = $try ? $this->t->call('TryLock', $body) : $this->await($body, $timeout);
        if ($r instanceof LockdException) {
            $this->endIfExpired($r);
            throw $r;
        }
        $this->deadline = max($this->deadline, $sent + $this->ttl);
        $held = $this->granted(is_array($r['lock'] ?? null) ? $r['lock'] : [], $sent);
        if ($this->lockDeadline[$held->handle] - $this->now() < $this->ttl / 3) {
            // Granted late in a long wait: its time counted from the Lock's
            // send is short, so ask at once how long it stays valid.
            try {
                $this->keepAlive();
            } catch (LockdException) {
                // the lock keeps the deadline of its grant; a lapse ended the session
            }
        }
        $why = $this->lostReason($held->handle);
        if ($why !== null) {
            $this->t->call('Unlock', ['sessionId' => $this->id, 'lockId' => $held->handle]);
            $this->forget($held->handle);
            throw new LostException("lockd: lock {$held->handle} was lost as it was granted: $why", 'LOST', '', '', [$held->handle], $this->id);
        }
        return $held;
    }

    /**
     * granted records a lock lockd returned (a HeldLock in JSON) from a call
     * sent at $sent: its deadline is the send plus its valid_for, at most
     * the TTL.
     *
     * @param array<string, mixed> $h
     */
    public function granted(array $h, float $sent): HeldLock
    {
        $handle = (string) ($h['lockId'] ?? '');
        $ids = [];
        foreach (($h['items'] ?? []) as $item) {
            $ids[] = (string) ($item['id'] ?? '');
        }
        $this->lockDeadline[$handle] = $sent + min($this->ttl, Transport::seconds($h['validFor'] ?? null));
        unset($this->lost[$handle]);
        $this->nextRenew = min($this->nextRenew, $sent + ($this->lockDeadline[$handle] - $sent) / 2);
        return new HeldLock($handle, $ids, (int) ($h['token'] ?? 0), (bool) ($h['reentrant'] ?? false));
    }

    /** keepAlive renews the session now and applies the answer (loss rules above). */
    public function keepAlive(): void
    {
        $this->ensureLive();
        $sent = $this->now();
        $r = $this->t->call('KeepAlive', ['sessionId' => $this->id]);
        $this->keepAliveAnswered($sent, $r);
        if ($r instanceof LockdException) {
            throw $r;
        }
        $this->ensureLive();
    }

    /** renewIfDue calls keepAlive() when a renewal is due: TTL/3 after the last, or half a lock's time. */
    public function renewIfDue(): void
    {
        if ($this->now() >= $this->nextRenew) {
            $this->keepAlive();
        }
    }

    /** @param array<string, mixed>|LockdException $r */
    private function keepAliveAnswered(float $sent, array|LockdException $r): void
    {
        if ($r instanceof LockdException) {
            $this->endIfExpired($r);
            $this->nextRenew = $this->now() + max($this->ttl / 10, 0.01); // retry sooner
            return;
        }
        $this->deadline = max($this->deadline, $sent + $this->ttl);
        $valid = is_array($r['validFor'] ?? null) ? $r['validFor'] : [];
        $this->nextRenew = $sent + $this->ttl / 3;
        foreach ($this->lockDeadline as $handle => $d) {
            if (!array_key_exists($handle, $valid)) {
                $this->lost[$handle] ??= 'lockd\'s KeepAlive answer no longer names it (its lease was lost)';
                continue;
            }
            $this->lockDeadline[$handle] = max($d, $sent + min($this->ttl, Transport::seconds($valid[$handle])));
            $this->nextRenew = min($this->nextRenew, $sent + ($this->lockDeadline[$handle] - $sent) / 2);
        }
    }

    /**
     * await makes a blocking Lock call and, while lockd holds it, calls
     * KeepAlive whenever one is due, on the same curl multi handle. The wait
     * ends with lockd's answer, or when the session ends meanwhile (lockd
     * says so, or no KeepAlive was answered within the TTL): then the Lock
     * call is dropped (lockd cancels its wait) and the session's error
     * returned.
     *
     * @param array<string, mixed> $body
     * @return array<string, mixed>|LockdException
     */
    private function await(array $body, ?float $timeout): array|LockdException
    {
        $mh = curl_multi_init();
        $lock = $this->t->handle('Lock', $body, $timeout, true);
        curl_multi_add_handle($mh, $lock);
        $ka = null;
        $kaSent = 0.0;
        try {
            while (true) {
                do {
                    $st = curl_multi_exec($mh, $running);
                } while ($st === CURLM_CALL_MULTI_PERFORM);
                while (($info = curl_multi_info_read($mh)) !== false) {
                    $h = $info['handle'];
                    $method = $h === $lock ? 'Lock' : 'KeepAlive';
                    $r = $this->t->result($method, $h, (string) curl_multi_getcontent($h), (int) $info['result']);
                    curl_multi_remove_handle($mh, $h);
                    if ($h === $lock) {
                        return $r;
                    }
                    $ka = null;
                    $this->keepAliveAnswered($kaSent, $r);
                }
                $this->check();
                if ($this->ended !== null) {
                    return $this->ended;
                }
                $now = $this->now();
                if ($ka === null && $now >= $this->nextRenew) {
                    $kaSent = $now;
                    $ka = $this->t->handle('KeepAlive', ['sessionId' => $this->id], null);
                    curl_multi_add_handle($mh, $ka);
                    continue;
                }
                $wait = $ka === null ? min(max($this->nextRenew - $now, 0.001), 1.0) : 0.1;
                if (curl_multi_select($mh, $wait) === -1) {
                    usleep(10_000);
                }
            }
        } finally {
            foreach ([$lock, $ka] as $h) {
                if ($h !== null) {
                    curl_multi_remove_handle($mh, $h);
                }
            }
            curl_multi_close($mh);
        }
    }

    /** holds says whether the session still counts $handle as one of its locks (lost or not). */
    public function holds(string $handle): bool
    {
        return isset($this->lockDeadline[$handle]) && $this->ended === null;
    }

    /** lostReason says why $handle must be taken as lost, null while it is held. */
    public function lostReason(string $handle): ?string
    {
        $this->check();
        if ($this->ended !== null) {
            return $this->ended->getMessage();
        }
        if (isset($this->lost[$handle])) {
            return $this->lost[$handle];
        }
        $d = $this->lockDeadline[$handle] ?? null;
        if ($d !== null && $this->now() > $d) {
            return 'its valid_for from lockd ran out before a KeepAlive answer renewed it';
        }
        return null;
    }

    public function forget(string $handle): void
    {
        unset($this->lockDeadline[$handle], $this->lost[$handle]);
    }

    /** ended is why the session ended, null while it lives. */
    public function ended(): ?LockdException
    {
        $this->check();
        return $this->ended;
    }

    public function ensureLive(): void
    {
        $e = $this->ended();
        if ($e !== null) {
            throw $e;
        }
    }

    /** end ends the session with $e: every lock it held counts as lost. */
    public function end(LockdException $e): void
    {
        $this->ended ??= $e;
    }

    private function endIfExpired(LockdException $e): void
    {
        if ($e instanceof SessionExpiredException) {
            $this->end($e);
        }
    }

    /** check applies the session's deadline: past it, the session is taken as lapsed. */
    private function check(): void
    {
        if ($this->ended === null && $this->now() > $this->deadline) {
            $this->ended = new SessionExpiredException(sprintf(
                'lockd: session %s: no call was answered within its TTL of %.3gs (counted from its send): it is taken as lapsed and its locks as lost; call keepAlive() more often than every TTL/3, or open a new client',
                $this->id,
                $this->ttl,
            ), 'SESSION_EXPIRED', '', '', array_keys($this->lockDeadline), $this->id);
        }
    }
}
