<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Tests;

use Lockstep\Lockd\Exception;
use Lockstep\Lockd\Internal\Errors;
use PHPUnit\Framework\TestCase;

/** Connect error answers to exceptions, on bytes a lockd wrote. */
final class ErrorsTest extends TestCase
{
    public function testTheLockErrorDetailIsReadFromItsBinaryValue(): void
    {
        // lockd's answer to a Lock naming no session (its debug JSON dropped:
        // the client reads the value).
        $body = '{"code":"not_found","message":"no session \"nope\" on this lockd","details":[{"type":"lockstep.v1.LockError","value":"CA8SBG5vcGU"}]}';
        $e = Errors::fromAnswer('Lock', 404, $body);
        $this->assertInstanceOf(Exception\SessionExpiredException::class, $e);
        $this->assertSame('UNKNOWN_SESSION', $e->reason());
        $this->assertSame('nope', $e->sessionId());
        $this->assertSame('not_found', $e->connectCode());
    }

    public function testADeadlockCarriesItsCycle(): void
    {
        // LockError{reason: DEADLOCK, id: "x", cycle: [{process: "p1", waits: {id: "x"}, held_by: "o2", held_in: SHARED, comment: "job"}]}
        $member = "\x0a\x02p1" . "\x12\x03\x0a\x01x" . "\x1a\x02o2" . "\x20\x01" . "\x2a\x03job";
        $bin = "\x08\x12" . "\x1a\x01x" . "\x32" . chr(strlen($member)) . $member;
        $body = json_encode(['code' => 'aborted', 'message' => 'deadlock', 'details' => [['type' => 'lockstep.v1.LockError', 'value' => rtrim(base64_encode($bin), '=')]]]);
        $e = Errors::fromAnswer('Lock', 409, (string) $body);
        $this->assertInstanceOf(Exception\DeadlockException::class, $e);
        $this->assertSame('DEADLOCK', $e->reason());
        $this->assertCount(1, $e->cycle());
        $m = $e->cycle()[0];
        $this->assertSame(['p1', 'x', 'ACCESS_EXCLUSIVE', 'o2', 'ACCESS_SHARED', 'job'], [$m->process, $m->waitsFor, $m->waitsIn, $m->heldBy, $m->heldIn, $m->comment]);
    }

    public function testAnAnswerThatIsNotConnectsIsAConnectionError(): void
    {
        $e = Errors::fromAnswer('Lock', 404, '404 page not found');
        $this->assertInstanceOf(Exception\ConnectionException::class, $e);
        $this->assertStringContainsString('no path after host:port', $e->getMessage());
        $this->assertInstanceOf(Exception\UnavailableException::class, Errors::fromAnswer('Lock', 503, '{"code":"unavailable","message":"x"}'));
    }

    public function testABrokenDetailIsAConnectionError(): void
    {
        $this->expectException(Exception\ConnectionException::class);
        Errors::lockError("\x12\x09ab");
    }
}
