<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

/**
 * UnavailableException: lockd answered Unavailable (STORE_UNAVAILABLE: the
 * store behind it failed; SHUTTING_DOWN: retry on another lockd). Nothing was
 * taken.
 */
class UnavailableException extends ConnectionException
{
}
