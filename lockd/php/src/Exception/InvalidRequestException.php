<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

/**
 * InvalidRequestException: bad input, refused by lockd (INVALID_ID,
 * INVALID_ACCESS, INVALID_ARGUMENT) or by the client before any call (a
 * name its query flags do not allow: reason INVALID_ID). Nothing changed.
 */
class InvalidRequestException extends LockdException
{
}
