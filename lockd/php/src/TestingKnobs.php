<?php

declare(strict_types=1);

namespace Lockstep\Lockd;

/**
 * TestingKnobs carry test-only behaviour into a client. Leave null in
 * production.
 */
final class TestingKnobs
{
    /**
     * @param (\Closure(): float)|null $clock monotonic seconds in place of
     *        hrtime(), so a test moves time past a lock's valid_for without
     *        sleeping
     */
    public function __construct(public readonly ?\Closure $clock = null)
    {
    }
}
