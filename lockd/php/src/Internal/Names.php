<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Internal;

use Lockstep\Lockd\Exception\InvalidRequestException;
use Lockstep\Lockd\LockManagerClient;
use Lockstep\Lockd\LockQuery;

/**
 * Names turns getLockQuery's array and flags into lockd's LockItems. Each
 * name is sent as lockd's id exactly as given; the flags decide which names
 * a query accepts, since lockd reads every id under its one --separator:
 *
 *  - no flag: a flat name, without the separator; a name with it would be
 *    a path at lockd (intention locks on its ancestors), which the caller
 *    did not ask for;
 *  - HIERARCHY: a path of non-empty segments joined by the separator
 *    ("orders/7": lockd takes "orders/7" and intention locks on "orders");
 *  - MASK: a name may end in the mask segment "*" ("orders/*": every child
 *    of "orders", taken as "orders" itself); without HIERARCHY the part
 *    before it is one flat name. Names without "*" are ordinary ids.
 *
 * A "*" segment is refused anywhere but last, and last without MASK.
 *
 * Each item also carries what its flags declare — "flat" without HIERARCHY,
 * "noMask" without MASK (LockItem.flat, no_mask) — and lockd refuses, with
 * INVALID_ID, an id it reads otherwise under its own separator. So a
 * client made with a separator lockd does not run still cannot take a path
 * it meant as one name.
 *
 * @internal
 */
final class Names
{
    /**
     * items validates a query and returns lockd's LockItems, in its order.
     *
     * @param array<array-key, mixed> $query name => LockQuery::READ or LockQuery::WRITE
     * @return list<array{id: string, access: string, flat?: true, noMask?: true}>
     */
    public static function items(array $query, int $flags, string $separator): array
    {
        $known = LockManagerClient::HIERARCHY | LockManagerClient::MASK;
        if (($flags & ~$known) !== 0) {
            throw self::invalid(sprintf('flags %d: want a combination of LockManagerClient::HIERARCHY (1) and MASK (2)', $flags));
        }
        if ($query === []) {
            throw self::invalid('an empty query: name at least one resource, as [name => LockQuery::READ or WRITE]');
        }
        $hierarchy = ($flags & LockManagerClient::HIERARCHY) !== 0;
        $mask = ($flags & LockManagerClient::MASK) !== 0;
        if (($hierarchy || $mask) && $separator === '') {
            throw self::invalid('HIERARCHY and MASK need lockd\'s separator, and the client was made with separator \'\' (flat ids): pass the separator lockd runs with (its --separator, "/" by default)');
        }
        $items = [];
        foreach ($query as $name => $type) {
            $name = (string) $name;
            $access = match ($type) {
                LockQuery::READ => 'ACCESS_SHARED',
                LockQuery::WRITE => 'ACCESS_EXCLUSIVE',
                default => throw self::invalid(sprintf('%s => %s: want LockQuery::READ (%d) or LockQuery::WRITE (%d)', self::q($name), var_export($type, true), LockQuery::READ, LockQuery::WRITE)),
            };
            self::check($name, $hierarchy, $mask, $separator);
            $item = ['id' => $name, 'access' => $access];
            if (!$hierarchy) {
                $item['flat'] = true;
            }
            if (!$mask) {
                $item['noMask'] = true;
            }
            $items[] = $item;
        }
        return $items;
    }

    private static function check(string $name, bool $hierarchy, bool $mask, string $sep): void
    {
        if ($name === '') {
            throw self::invalid('an empty name: name the resource');
        }
        if ($sep === '') {
            return; // flat ids: every name is one
        }
        $segments = explode($sep, $name);
        $last = count($segments) - 1;
        foreach ($segments as $i => $s) {
            if ($s === '*' && $i !== $last) {
                throw self::invalid(sprintf('%s has the mask segment "*" before other segments: a mask may only be the last segment ("orders%s*")', self::q($name), $sep));
            }
        }
        $isMask = $segments[$last] === '*';
        if ($isMask && !$mask) {
            throw self::invalid(sprintf('%s ends in the mask segment "*": pass LockManagerClient::MASK to lock every child of %s, or choose a name without it', self::q($name), self::q(implode($sep, array_slice($segments, 0, $last)))));
        }
        $path = $isMask ? array_slice($segments, 0, $last) : $segments;
        if ($isMask && $path === []) {
            throw self::invalid(sprintf('%s is a mask of nothing: name its parent first ("orders%s*")', self::q($name), $sep));
        }
        if (count($path) > 1 && !$hierarchy) {
            throw self::invalid(sprintf('%s contains lockd\'s separator %s: pass LockManagerClient::HIERARCHY to lock it as a path, or choose a name without it', self::q($name), self::q($sep)));
        }
        foreach ($path as $s) {
            if ($s === '') {
                throw self::invalid(sprintf('%s has an empty segment (a separator %s at its start, its end, or twice in a row): name each level', self::q($name), self::q($sep)));
            }
        }
    }

    private static function q(string $s): string
    {
        return json_encode($s, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE) ?: $s;
    }

    private static function invalid(string $msg): InvalidRequestException
    {
        return new InvalidRequestException('lockd client: getLockQuery: ' . $msg, 'INVALID_ID');
    }
}
