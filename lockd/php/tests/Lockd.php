<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Tests;

/**
 * Lockd is a lockd process on a loopback port, on the embedded model, for
 * one test class: the binary named by LOCKD_BIN (lockd/scripts/phpunit
 * builds it). Without LOCKD_BIN the tests fail, saying how to run them.
 */
final class Lockd
{
    /** @var resource */
    private $proc;
    public readonly string $url;
    private string $dir;

    /** @param list<string> $args lockd's flags */
    public function __construct(array $args = [])
    {
        $bin = getenv('LOCKD_BIN');
        if ($bin === false || !is_executable($bin)) {
            throw new \RuntimeException('LOCKD_BIN is not set to a lockd binary: run the tests with lockd/scripts/phpunit, which builds lockd and sets it');
        }
        $this->dir = sys_get_temp_dir() . '/lockd-php-' . bin2hex(random_bytes(4));
        mkdir($this->dir);
        $cmd = array_merge([$bin, '--listen', '127.0.0.1:0'], $args);
        $proc = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', $this->dir . '/lockd.log', 'w']], $pipes);
        if ($proc === false) {
            throw new \RuntimeException('cannot start ' . $bin);
        }
        $this->proc = $proc;
        $line = fgets($pipes[1]);
        if ($line === false || preg_match('#serving lockstep\.v1 on (https?://[0-9.:]+)#', $line, $m) !== 1) {
            proc_terminate($proc);
            throw new \RuntimeException("lockd did not say where it serves: \"$line\"; its log: " . file_get_contents($this->dir . '/lockd.log'));
        }
        $this->url = $m[1];
    }

    /** A file in this lockd's scratch directory. */
    public function path(string $name): string
    {
        return $this->dir . '/' . $name;
    }

    public function stop(): void
    {
        if (proc_get_status($this->proc)['running']) {
            proc_terminate($this->proc);
        }
        proc_close($this->proc);
        array_map('unlink', glob($this->dir . '/*') ?: []);
        rmdir($this->dir);
    }
}
