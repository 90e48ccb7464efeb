<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

/**
 * SessionExpiredException: the session ended (SESSION_EXPIRED, UNKNOWN_SESSION,
 * or no keep-alive answered within its TTL, counted from its send): every
 * lock it held is lost (lostLockIds() lists lockd's handles). Open a new
 * client.
 */
class SessionExpiredException extends LostException
{
}
