<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Exception;

/**
 * UpgradeException: UPGRADE, a WRITE asked on an id the identity holds for
 * READ (lockd does not upgrade in place); or INCOMPATIBLE_MODE, the fleet's
 * phase refuses the lock (reason() says which). Nothing was taken.
 */
class UpgradeException extends LockdException
{
}
