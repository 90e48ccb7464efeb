<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

/**
 * ConnectionException: lockd could not be reached or its answer was not
 * lockd's (a curl error, an HTTP status without Connect's JSON error). The
 * call may or may not have been applied: a Lock may be held at lockd, and
 * is then released with the session (close(), or its TTL).
 */
class ConnectionException extends LockdException
{
}
