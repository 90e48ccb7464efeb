<?php

// counter.php URL ID FILE EVENTS K NAME [--no-lock]: one PHP worker of seed
// 003's counter scenario (lockd/examples/counter's doc): K increments of the
// counter in FILE, each under a lock on ID, between "enter NAME" and
// "leave NAME" lines appended to EVENTS. --no-lock skips the lock: the
// negative control, whose overlaps the check must see.

declare(strict_types=1);

require dirname(__DIR__, 2) . '/vendor/autoload.php';

use Lockstep\Lockd\LockManagerClient;
use Lockstep\Lockd\LockQuery;

[, $url, $id, $file, $events, $k, $name] = $argv;
$locking = ($argv[7] ?? '') !== '--no-lock';
$c = new LockManagerClient($url, name: $name);
$q = $c->getLockQuery([$id => LockQuery::WRITE]);
for ($i = 0; $i < (int) $k; $i++) {
    if ($locking) {
        $q->lock('counter ' . $name, 60);
    }
    file_put_contents($events, "enter $name\n", FILE_APPEND);
    $n = (int) @file_get_contents($file);
    usleep(1000); // widen the window a lost update needs
    file_put_contents($file, (string) ($n + 1));
    file_put_contents($events, "leave $name\n", FILE_APPEND);
    if ($locking) {
        $q->check();
        $q->unlock();
    }
}
$c->close();
