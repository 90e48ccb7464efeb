<?php

// deadlock_peer.php URL FIRST SECOND: takes FIRST, prints "ready", then
// waits for SECOND (comment "peer"). Prints "locked" or "DEADLOCK <n>"
// (the cycle's length; it then releases what it holds), then exits.

declare(strict_types=1);

require dirname(__DIR__, 2) . '/vendor/autoload.php';

use Lockstep\Lockd\Exception\DeadlockException;
use Lockstep\Lockd\LockManagerClient;
use Lockstep\Lockd\LockQuery;

[, $url, $first, $second] = $argv;
$c = new LockManagerClient($url, name: 'deadlock_peer.php');
$c->getLockQuery([$first => LockQuery::WRITE])->lock('peer');
echo "ready\n";
try {
    $c->getLockQuery([$second => LockQuery::WRITE])->lock('peer', 20);
    echo "locked\n";
} catch (DeadlockException $e) {
    echo 'DEADLOCK ' . count($e->cycle()) . "\n";
}
$c->unlockAll();
$c->close();
