<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Tests;

use PHPUnit\Framework\TestCase;

/**
 * Seed 003's counter scenario across languages: N PHP processes, a Go
 * client and a Python client each add 1 to a shared counter file K times
 * under a lock on one id of one lockd. Mutual exclusion shows twice: the
 * counter ends at (N+2)·K (a read-modify-write outside exclusion loses
 * updates), and the enter/leave events never overlap. The control runs the
 * PHP workers without the lock and asserts the check sees overlaps.
 *
 * Needs LOCKD_COUNTER_GO (lockd/examples/counter built) and LOCKD_PYTHON (the
 * venv of lockd/scripts/venv); lockd/scripts/phpunit sets both.
 */
final class CounterTest extends TestCase
{
    private const PHP_WORKERS = 3;
    private const K = 20;

    private static Lockd $lockd;

    public static function setUpBeforeClass(): void
    {
        self::$lockd = new Lockd();
    }

    public static function tearDownAfterClass(): void
    {
        self::$lockd->stop();
    }

    public function testPHPGoAndPythonWorkersEndAtNTimesKWithoutOverlaps(): void
    {
        $go = self::env('LOCKD_COUNTER_GO');
        $python = self::env('LOCKD_PYTHON');
        [$file, $events] = [self::$lockd->path('counter'), self::$lockd->path('events')];
        $id = 'seed003-counter';
        $cmds = [];
        for ($i = 1; $i <= self::PHP_WORKERS; $i++) {
            $cmds[] = [PHP_BINARY, __DIR__ . '/bin/counter.php', self::$lockd->url, $id, $file, $events, (string) self::K, "php-$i"];
        }
        $cmds[] = [$go, '-addr', self::$lockd->url, '-id', $id, '-file', $file, '-events', $events, '-k', (string) self::K, '-name', 'go-1'];
        $cmds[] = [$python, __DIR__ . '/bin/counter.py', substr(self::$lockd->url, strlen('http://')), $id, $file, $events, (string) self::K, 'py-1'];
        $this->runAll($cmds);
        $n = count($cmds);
        $this->assertSame($n * self::K, (int) file_get_contents($file), 'the counter ends at N·K');
        [$overlaps, $entered] = self::overlaps($events);
        $this->assertSame(0, $overlaps, 'no two workers inside at once');
        $this->assertSame($n * self::K, $entered);
        foreach (['php-1', 'go-1', 'py-1'] as $w) {
            $this->assertStringContainsString("enter $w\n", (string) file_get_contents($events), "$w took part");
        }
    }

    public function testTheCheckSeesOverlapsWithoutTheLock(): void
    {
        [$file, $events] = [self::$lockd->path('control'), self::$lockd->path('control-events')];
        $cmds = [];
        for ($i = 1; $i <= self::PHP_WORKERS; $i++) {
            $cmds[] = [PHP_BINARY, __DIR__ . '/bin/counter.php', self::$lockd->url, 'control', $file, $events, (string) self::K, "php-$i", '--no-lock'];
        }
        $this->runAll($cmds);
        [$overlaps] = self::overlaps($events);
        $this->assertGreaterThan(0, $overlaps, 'without the lock the workers overlap, and the check must see it');
    }

    /** @param list<list<string>> $cmds runs every command at once and waits; each must exit 0 */
    private function runAll(array $cmds): void
    {
        $procs = [];
        foreach ($cmds as $cmd) {
            $out = tempnam(sys_get_temp_dir(), 'counter');
            $procs[] = [proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $out, 'w'], 2 => ['file', $out, 'a']], $pipes), $cmd, $out];
        }
        foreach ($procs as [$p, $cmd, $out]) {
            $rc = self::wait($p);
            $said = (string) file_get_contents($out);
            unlink($out);
            $this->assertSame(0, $rc, basename($cmd[1]) . ' ' . end($cmd) . " exited $rc: $said");
        }
    }

    /** @param resource $p */
    private static function wait($p): int
    {
        do {
            $s = proc_get_status($p);
            if (!$s['running']) {
                proc_close($p);
                return $s['exitcode'];
            }
            usleep(20_000);
        } while (true);
    }

    /**
     * overlaps counts the enters that found another worker inside, and all
     * enters.
     *
     * @return array{0: int, 1: int}
     */
    private static function overlaps(string $events): array
    {
        $inside = 0;
        $overlaps = 0;
        $entered = 0;
        foreach (file($events, FILE_IGNORE_NEW_LINES) ?: [] as $line) {
            if (str_starts_with($line, 'enter ')) {
                $entered++;
                if ($inside > 0) {
                    $overlaps++;
                }
                $inside++;
            } elseif (str_starts_with($line, 'leave ')) {
                $inside--;
            }
        }
        return [$overlaps, $entered];
    }

    private static function env(string $name): string
    {
        $v = getenv($name);
        if ($v === false || $v === '') {
            throw new \RuntimeException("$name is not set: run the tests with lockd/scripts/phpunit, which builds the Go worker and the Python venv and sets it");
        }
        return $v;
    }
}
