<?php

// hold.php URL NAME SECONDS: takes NAME, prints "held", holds it SECONDS,
// unlocks it and prints "released". For tests whose waits need a second
// process (PHP has no threads).

declare(strict_types=1);

require dirname(__DIR__, 2) . '/vendor/autoload.php';

use Lockstep\Lockd\LockManagerClient;
use Lockstep\Lockd\LockQuery;

[, $url, $name, $seconds] = $argv;
$c = new LockManagerClient($url, name: 'hold.php');
$q = $c->getLockQuery([$name => LockQuery::WRITE]);
$q->lock();
echo "held\n";
usleep((int) ((float) $seconds * 1e6));
$q->unlock();
echo "released\n";
$c->close();
