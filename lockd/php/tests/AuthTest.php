<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Tests;

use Lockstep\Lockd\Exception;
use Lockstep\Lockd\Lock;
use Lockstep\Lockd\LockManagerClient;
use Lockstep\Lockd\LockQuery;
use PHPUnit\Framework\TestCase;

/** Bearer tokens against a lockd with principals, served over TLS. */
final class AuthTest extends TestCase
{
    private static Lockd $lockd;
    private static string $dir;

    public static function setUpBeforeClass(): void
    {
        self::$dir = sys_get_temp_dir() . '/lockd-php-auth-' . bin2hex(random_bytes(4));
        mkdir(self::$dir);
        foreach (['cert', 'other'] as $name) {
            self::certificate(self::$dir . "/$name.pem", self::$dir . "/$name-key.pem");
        }
        file_put_contents(self::$dir . '/principals.json', json_encode(['principals' => [
            ['name' => 'php', 'token_sha256' => [hash('sha256', 'tok-php')], 'prefixes' => ['php/']],
        ]]));
        self::$lockd = new Lockd(['--principals', self::$dir . '/principals.json', '--server-cert', self::$dir . '/cert.pem', '--server-key', self::$dir . '/cert-key.pem']);
    }

    /** certificate makes a self-signed certificate for 127.0.0.1. */
    private static function certificate(string $cert, string $key): void
    {
        exec(sprintf(
            'openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout %s -out %s 2>&1',
            escapeshellarg($key),
            escapeshellarg($cert),
        ), $out, $rc);
        if ($rc !== 0) {
            throw new \RuntimeException('openssl could not make a certificate: ' . implode("\n", $out));
        }
    }

    public static function tearDownAfterClass(): void
    {
        self::$lockd->stop();
        array_map('unlink', glob(self::$dir . '/*') ?: []);
        rmdir(self::$dir);
    }

    private function client(?string $token = 'tok-php'): LockManagerClient
    {
        return new LockManagerClient(self::$lockd->url, token: $token, caFile: self::$dir . '/cert.pem');
    }

    public function testATokenTakesLocksUnderItsPrefixesOverTLS(): void
    {
        $this->assertStringStartsWith('https://', self::$lockd->url);
        $c = $this->client();
        $this->assertSame(Lock::LOCKED, $c->getLockQuery(['php/inv-1' => LockQuery::WRITE], LockManagerClient::HIERARCHY)->lock());
        try {
            $c->getLockQuery(['billing/inv-1' => LockQuery::WRITE], LockManagerClient::HIERARCHY)->lock();
            $this->fail('an id outside the prefixes was granted');
        } catch (Exception\PermissionException $e) {
            $this->assertSame('NO_PREFIX', $e->reason());
            $this->assertSame('billing/inv-1', $e->id());
        }
        $c->close();
    }

    public function testAWrongOrMissingTokenIsRefused(): void
    {
        foreach (['wrong', null] as $token) {
            try {
                $this->client($token);
                $this->fail('a session was opened without the token');
            } catch (Exception\PermissionException $e) {
                $this->assertSame('UNAUTHENTICATED', $e->reason());
            }
        }
    }

    public function testAnUnknownCAIsAConnectionError(): void
    {
        $this->expectException(Exception\ConnectionException::class);
        new LockManagerClient(self::$lockd->url, token: 'tok-php', caFile: self::$dir . '/other.pem');
    }
}
