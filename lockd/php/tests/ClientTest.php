<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Tests;

use Lockstep\Lockd\Exception;
use Lockstep\Lockd\Lock;
use Lockstep\Lockd\LockManagerClient;
use Lockstep\Lockd\LockQuery;
use Lockstep\Lockd\TestingKnobs;
use PHPUnit\Framework\TestCase;

/** The client against a real lockd on the embedded model, in open mode. */
final class ClientTest extends TestCase
{
    private static Lockd $lockd;
    private static float $skew = 0.0;

    public static function setUpBeforeClass(): void
    {
        self::$lockd = new Lockd();
    }

    public static function tearDownAfterClass(): void
    {
        self::$lockd->stop();
    }

    private function client(?float $ttl = null, bool $skewed = false): LockManagerClient
    {
        self::$skew = 0.0;
        $knobs = $skewed ? new TestingKnobs(static fn (): float => hrtime(true) / 1e9 + self::$skew) : null;
        return new LockManagerClient(self::$lockd->url, ttl: $ttl, testingKnobs: $knobs);
    }

    public function testLockedThenAlreadyLockedThenCannotLock(): void
    {
        $a = $this->client();
        $b = $this->client();
        $q = $a->getLockQuery(['rx/1' => LockQuery::WRITE], LockManagerClient::HIERARCHY);
        $this->assertSame(Lock::LOCKED, $q->lock());
        $again = $a->getLockQuery(['rx/1' => LockQuery::WRITE], LockManagerClient::HIERARCHY);
        $this->assertSame(Lock::ALREADY_LOCKED, $again->lock(), 'the identity held rx/1 and its intention lock on rx: it only counted');
        $this->assertSame(Lock::LOCKED, $a->getLockQuery(['rx/2' => LockQuery::WRITE], LockManagerClient::HIERARCHY)->lock(), 'rx/2 shares the intention lock on rx but takes rx/2');
        $this->assertSame(Lock::CANNOT_LOCK, $b->getLockQuery(['rx/1' => LockQuery::READ], LockManagerClient::HIERARCHY)->tryLock());
        $this->assertSame(Lock::UNLOCKED, $again->unlock());
        $this->assertSame(Lock::CANNOT_LOCK, $b->getLockQuery(['rx/1' => LockQuery::READ], LockManagerClient::HIERARCHY)->tryLock(), 'one count is left');
        $this->assertSame(Lock::UNLOCKED, $q->unlock());
        $this->assertSame(Lock::NOT_LOCKED, $q->unlock());
        $this->assertSame(Lock::LOCKED, $b->getLockQuery(['rx/1' => LockQuery::READ], LockManagerClient::HIERARCHY)->tryLock());
        $a->close();
        $b->close();
    }

    public function testAFlatLockHasAFencingTokenThatGrows(): void
    {
        $a = $this->client();
        $q = $a->getLockQuery(['fence-1' => LockQuery::WRITE]);
        $q->lock();
        $first = $q->token();
        $q->unlock();
        $q->lock();
        $this->assertGreaterThan(0, $first);
        $this->assertGreaterThan($first, $q->token());
        $path = $a->getLockQuery(['fence/a' => LockQuery::WRITE], LockManagerClient::HIERARCHY);
        $this->assertSame(Lock::LOCKED, $path->lock());
        $this->assertSame(0, $path->token(), 'a path has several members: no token');
        $a->close();
    }

    public function testAMaskExcludesEveryChild(): void
    {
        $a = $this->client();
        $b = $this->client();
        $this->assertSame(Lock::LOCKED, $a->getLockQuery(['exports/*' => LockQuery::WRITE], LockManagerClient::MASK)->lock());
        $this->assertSame(Lock::CANNOT_LOCK, $b->getLockQuery(['exports/never-named' => LockQuery::READ], LockManagerClient::HIERARCHY)->tryLock());
        $a->close();
        $this->assertSame(Lock::LOCKED, $b->getLockQuery(['exports/never-named' => LockQuery::READ], LockManagerClient::HIERARCHY)->tryLock());
        $b->close();
    }

    public function testLockTimesOutLeavingNothingHeld(): void
    {
        $a = $this->client();
        $b = $this->client();
        $a->getLockQuery(['to-1' => LockQuery::WRITE])->lock();
        $q = $b->getLockQuery(['to-1' => LockQuery::WRITE]);
        try {
            $q->lock('', 0.3);
            $this->fail('granted');
        } catch (Exception\TimeoutException $e) {
            $this->assertSame('DEADLINE', $e->reason());
        }
        $this->assertFalse($q->isLocked());
        $this->assertSame([], $b->unlockAll(), 'nothing was left held');
        $a->close();
        $b->close();
    }

    public function testTheSessionIsKeptAliveWhileLockWaits(): void
    {
        // A holder in another process keeps the id 2.5 s; this session's TTL
        // is 1 s, and lockd does not count a waiting Lock as keeping it
        // alive: only the KeepAlives sent beside the wait do.
        $holder = proc_open([PHP_BINARY, __DIR__ . '/bin/hold.php', self::$lockd->url, 'ka-1', '2.5'], [1 => ['pipe', 'w']], $pipes);
        $this->assertSame("held\n", fgets($pipes[1]));
        $a = $this->client(1.0);
        $q = $a->getLockQuery(['ka-1' => LockQuery::WRITE]);
        $this->assertSame(Lock::LOCKED, $q->lock('', 10));
        $this->assertFalse($q->isLost());
        $this->assertSame(Lock::UNLOCKED, $q->unlock());
        $this->assertSame("released\n", fgets($pipes[1]));
        proc_close($holder);
        $a->close();
    }

    public function testALockIsLostOnceItsValidForRunsOut(): void
    {
        $a = $this->client(60.0, skewed: true);
        $q = $a->getLockQuery(['vf-1' => LockQuery::WRITE]);
        $q->lock();
        // lockd on the embedded model with its 30 s lock TTL gives about
        // 14 s of valid_for, well inside the session's 60 s TTL.
        self::$skew = 5.0;
        $this->assertFalse($q->isLost());
        $a->keepAlive(); // sent at +5: valid until about +19, less the real time since the grant
        self::$skew = 15.5; // past the grant's own valid_for (about +14), with 3.5 s of real time to spare
        $this->assertFalse($q->isLost(), 'the KeepAlive at +5 renewed it');
        self::$skew = 40.0;
        $this->assertFalse($a->isLost(), 'the session is within its TTL');
        $this->assertTrue($q->isLost(), 'no answer renewed the lock for its valid_for');
        try {
            $q->check();
            $this->fail('check() passed a lost lock');
        } catch (Exception\LostException $e) {
            $this->assertStringContainsString('valid_for', $e->getMessage());
        }
        try {
            $q->unlock();
            $this->fail('unlock() of a lost lock said nothing');
        } catch (Exception\LostException $e) {
            $this->assertStringContainsString('had been lost before', $e->getMessage());
        }
        $b = $this->client();
        $this->assertSame(Lock::LOCKED, $b->getLockQuery(['vf-1' => LockQuery::WRITE])->tryLock(), 'unlock() released it all the same');
        $a->close();
        $b->close();
    }

    public function testTheSessionIsTakenAsLapsedOnceItsTTLPasses(): void
    {
        $a = $this->client(5.0, skewed: true);
        $q = $a->getLockQuery(['ttl-1' => LockQuery::WRITE]);
        $q->lock();
        self::$skew = 5.5;
        $this->assertTrue($a->isLost());
        $this->assertTrue($q->isLost());
        $this->expectException(Exception\SessionExpiredException::class);
        $a->getLockQuery(['ttl-2' => LockQuery::WRITE])->tryLock();
    }

    public function testCallsRenewTheSessionWhenARenewalIsDue(): void
    {
        $a = $this->client(3.0, skewed: true);
        $q = $a->getLockQuery(['due-1' => LockQuery::WRITE]);
        $q->lock();
        self::$skew = 2.0; // past TTL/3: the next call sends a KeepAlive first
        $a->getLockQuery(['due-2' => LockQuery::WRITE])->tryLock();
        self::$skew = 4.0; // past the lock call's send + TTL, not the KeepAlive's
        $this->assertFalse($a->isLost());
        $this->assertFalse($q->isLost());
        $a->close();
    }

    public function testLockdEndingTheSessionIsALoss(): void
    {
        $a = $this->client(1.0);
        $q = $a->getLockQuery(['gone-1' => LockQuery::WRITE]);
        $q->lock();
        $other = $this->client();
        // lockd ends the session a TTL after its last call; a holder that
        // no call renews learns it from the next answer.
        $granted = $other->getLockQuery(['gone-1' => LockQuery::WRITE])->lock('', 5);
        $this->assertSame(Lock::LOCKED, $granted);
        $this->assertTrue($q->isLost());
        $this->expectException(Exception\SessionExpiredException::class);
        $q->unlock();
    }

    public function testADeadlockIsReportedWithItsCycle(): void
    {
        $a = $this->client();
        $a->getLockQuery(['dl-x' => LockQuery::WRITE])->lock('mine');
        $peer = proc_open([PHP_BINARY, __DIR__ . '/bin/deadlock_peer.php', self::$lockd->url, 'dl-y', 'dl-x'], [1 => ['pipe', 'w']], $pipes);
        $this->assertSame("ready\n", fgets($pipes[1]));
        $broken = null;
        try {
            $a->getLockQuery(['dl-y' => LockQuery::WRITE])->lock('mine', 20);
        } catch (Exception\DeadlockException $e) {
            $broken = $e;
            $a->unlockAll();
        }
        $peerSaid = trim((string) fgets($pipes[1]));
        proc_close($peer);
        if ($broken !== null) {
            $this->assertSame('locked', $peerSaid);
            $this->assertSame('DEADLOCK', $broken->reason());
            $this->assertCount(2, $broken->cycle());
            $this->assertSame(['dl-y', 'dl-x'], [$broken->cycle()[0]->waitsFor, $broken->cycle()[1]->waitsFor]);
            $this->assertSame(['mine', 'peer'], [$broken->cycle()[0]->comment, $broken->cycle()[1]->comment]);
        } else {
            $this->assertSame('DEADLOCK 2', $peerSaid, 'one of the two waits is broken');
        }
        $a->close();
    }

    public function testTokensShareTheIdentityAndRefuseWhatTheyMust(): void
    {
        $a = $this->client();
        $b = $this->client();
        $q = $a->getLockQuery(['tok-1' => LockQuery::WRITE]);
        $q->lock();
        $token = $a->getToken();
        $this->assertStringStartsWith('lkt1.', $token);
        $gone = $this->client();
        $goneToken = $gone->getToken();
        $gone->close();
        $refusals = [
            'INVALID_TOKEN' => fn () => $b->setToken('junk'),
            'OWN_TOKEN' => fn () => $a->setToken($token),
            'UNKNOWN_TOKEN' => fn () => $b->setToken($goneToken),
        ];
        foreach ($refusals as $reason => $f) {
            try {
                $f();
                $this->fail("$reason: accepted");
            } catch (Exception\TokenException $e) {
                $this->assertSame($reason, $e->reason(), $e->getMessage());
            }
        }
        $c = $this->client();
        $c->getLockQuery(['tok-2' => LockQuery::WRITE])->lock();
        try {
            $c->setToken($token);
            $this->fail('HOLDS_LOCKS: accepted');
        } catch (Exception\TokenException $e) {
            $this->assertSame('HOLDS_LOCKS', $e->reason());
        }
        $locks = $b->setToken($token);
        $this->assertSame(['tok-1'], $locks[0]->ids);
        $a->close(); // b keeps the identity, and tok-1
        $this->assertSame(Lock::CANNOT_LOCK, $c->getLockQuery(['tok-1' => LockQuery::WRITE])->tryLock());
        $this->assertSame([$locks[0]->handle], $b->unlockAll());
        $this->assertSame(Lock::LOCKED, $c->getLockQuery(['tok-1' => LockQuery::WRITE])->tryLock());
        $b->close();
        $c->close();
    }

    public function testBadOptionsAreRefusedBeforeAnyCall(): void
    {
        $cases = [
            fn () => new LockManagerClient('127.0.0.1:7420'),
            fn () => new LockManagerClient(self::$lockd->url, ttl: 0),
            fn () => new LockManagerClient(self::$lockd->url, token: ''),
            fn () => new LockManagerClient(self::$lockd->url, caFile: '/etc/hostname'),
            fn () => new LockManagerClient('https://127.0.0.1:1', certFile: '/etc/hostname'),
            fn () => new LockManagerClient('https://127.0.0.1:1', caFile: '/no/such/file'),
        ];
        foreach ($cases as $i => $f) {
            try {
                $f();
                $this->fail("case $i accepted");
            } catch (\InvalidArgumentException $e) {
                $this->assertStringStartsWith('lockd client: ', $e->getMessage());
            }
        }
        $this->expectException(Exception\InvalidRequestException::class);
        $this->client()->getLockQuery(['a' => LockQuery::WRITE])->lock('', 0.0);
    }

    public function testLockdRefusesAPathItsFlagsDeclareFlat(): void
    {
        // Made with ":" while lockd runs with "/": the client takes
        // "cfg/a" for one name, and lockd, which reads it as a path, refuses
        // the flat item instead of locking it with intention locks.
        $wrong = new LockManagerClient(self::$lockd->url, separator: ':');
        try {
            $wrong->getLockQuery(['cfg/a' => LockQuery::WRITE])->lock();
            $this->fail('a path declared flat was locked');
        } catch (Exception\InvalidRequestException $e) {
            $this->assertSame('INVALID_ID', $e->reason());
            $this->assertStringContainsString('drop lockstep.Flat', $e->getMessage());
        }
        $this->assertSame(Lock::LOCKED, $wrong->getLockQuery(['cfg' => LockQuery::WRITE])->lock(), 'a flat name both read alike');
        $b = $this->client();
        $this->assertSame(Lock::CANNOT_LOCK, $b->getLockQuery(['cfg/a' => LockQuery::READ], LockManagerClient::HIERARCHY)->tryLock(), 'the flat holder of cfg excludes a path below it');
        $wrong->close();
        $b->close();
    }

    public function testLockdsRefusalsAreTyped(): void
    {
        $a = $this->client();
        try {
            $a->getLockQuery(['x' => LockQuery::WRITE])->lock(str_repeat('c', 300));
            $this->fail('a comment of 300 bytes accepted');
        } catch (Exception\InvalidRequestException $e) {
            $this->assertSame('INVALID_ARGUMENT', $e->reason());
        }
        $this->expectException(Exception\ConnectionException::class);
        new LockManagerClient('http://127.0.0.1:1', connectTimeout: 1);
    }
}
