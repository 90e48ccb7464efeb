<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Internal;

use Lockstep\Lockd\DeadlockMember;
use Lockstep\Lockd\Exception;

/**
 * Errors turns lockd's Connect error answers into this client's exceptions.
 * The LockError detail is decoded from its binary value (Connect's "value",
 * protobuf in unpadded base64), not from the "debug" JSON a server may omit.
 *
 * @internal
 */
final class Errors
{
    /** LockError.Reason numbers (lockd.proto), without "REASON_". */
    private const REASONS = [
        1 => 'LOCKED', 2 => 'LOST', 3 => 'SESSION_EXPIRED', 4 => 'UPGRADE', 5 => 'INCOMPATIBLE_MODE',
        6 => 'INVALID_ID', 7 => 'INVALID_ACCESS', 8 => 'INVALID_ARGUMENT', 9 => 'NO_PREFIX',
        10 => 'NOT_YOUR_SESSION', 11 => 'UNAUTHENTICATED', 12 => 'STORE_UNAVAILABLE', 13 => 'STORE_REFUSED',
        14 => 'SHUTTING_DOWN', 15 => 'UNKNOWN_SESSION', 16 => 'UNKNOWN_LOCK', 17 => 'DEADLINE', 18 => 'DEADLOCK',
        19 => 'INVALID_TOKEN', 20 => 'UNKNOWN_TOKEN', 21 => 'NOT_YOUR_TOKEN', 22 => 'OWN_TOKEN',
        23 => 'HOLDS_LOCKS', 24 => 'OTHER_LOCKD',
    ];

    /** The exception class of each reason. */
    private const CLASSES = [
        'LOCKED' => Exception\LockedException::class,
        'LOST' => Exception\LostException::class,
        'SESSION_EXPIRED' => Exception\SessionExpiredException::class,
        'UNKNOWN_SESSION' => Exception\SessionExpiredException::class,
        'UPGRADE' => Exception\UpgradeException::class,
        'INCOMPATIBLE_MODE' => Exception\UpgradeException::class,
        'INVALID_ID' => Exception\InvalidRequestException::class,
        'INVALID_ACCESS' => Exception\InvalidRequestException::class,
        'INVALID_ARGUMENT' => Exception\InvalidRequestException::class,
        'NO_PREFIX' => Exception\PermissionException::class,
        'NOT_YOUR_SESSION' => Exception\PermissionException::class,
        'UNAUTHENTICATED' => Exception\PermissionException::class,
        'NOT_YOUR_TOKEN' => Exception\PermissionException::class,
        'STORE_REFUSED' => Exception\PermissionException::class,
        'STORE_UNAVAILABLE' => Exception\UnavailableException::class,
        'SHUTTING_DOWN' => Exception\UnavailableException::class,
        'UNKNOWN_LOCK' => Exception\UnknownLockException::class,
        'DEADLINE' => Exception\TimeoutException::class,
        'DEADLOCK' => Exception\DeadlockException::class,
        'INVALID_TOKEN' => Exception\TokenException::class,
        'UNKNOWN_TOKEN' => Exception\TokenException::class,
        'OWN_TOKEN' => Exception\TokenException::class,
        'HOLDS_LOCKS' => Exception\TokenException::class,
        'OTHER_LOCKD' => Exception\TokenException::class,
    ];

    /** The access names of lockd.proto's Access enum. */
    public const ACCESS = [
        0 => 'ACCESS_EXCLUSIVE', 1 => 'ACCESS_SHARED', 2 => 'ACCESS_INTENT_SHARED',
        3 => 'ACCESS_INTENT_EXCLUSIVE', 4 => 'ACCESS_SHARED_INTENT_EXCLUSIVE',
    ];

    /**
     * fromAnswer builds the exception for an HTTP answer other than 200:
     * Connect's JSON error with its LockError detail, or a ConnectionException
     * when the body is not Connect's.
     */
    public static function fromAnswer(string $method, int $status, string $body): Exception\LockdException
    {
        $json = json_decode($body, true);
        if (!is_array($json) || !isset($json['code']) || !is_string($json['code'])) {
            return new Exception\ConnectionException(sprintf(
                'lockd %s: HTTP %d without a Connect error (%s): is the URL a lockd\'s, with no path after host:port?',
                $method,
                $status,
                substr(trim($body), 0, 200),
            ));
        }
        $code = $json['code'];
        $message = 'lockd ' . $method . ': ' . (is_string($json['message'] ?? null) ? $json['message'] : $code);
        $detail = null;
        foreach (($json['details'] ?? []) as $d) {
            if (is_array($d) && ($d['type'] ?? '') === 'lockstep.v1.LockError' && is_string($d['value'] ?? null)) {
                $bin = base64_decode(strtr($d['value'], '-_', '+/'), false);
                $detail = $bin === false ? null : self::lockError($bin);
                break;
            }
        }
        if ($detail === null) {
            $class = $code === 'unavailable' ? Exception\UnavailableException::class : Exception\LockdException::class;
            return new $class($message, '', $code);
        }
        $reason = self::REASONS[$detail['reason']] ?? 'UNSPECIFIED';
        $class = self::CLASSES[$reason] ?? Exception\LockdException::class;
        $e = new $class($message, $reason, $code, $detail['id'], $detail['lost'], $detail['session']);
        if ($e instanceof Exception\DeadlockException) {
            $e->withCycle($detail['cycle']);
        }
        return $e;
    }

    /**
     * lockError decodes a LockError message (lockd.proto) from protobuf's
     * binary form.
     *
     * @return array{reason: int, session: string, id: string, lost: list<string>, cycle: list<DeadlockMember>}
     */
    public static function lockError(string $bin): array
    {
        $out = ['reason' => 0, 'session' => '', 'id' => '', 'lost' => [], 'cycle' => []];
        foreach (Proto::fields($bin) as [$field, $value]) {
            match ($field) {
                1 => $out['reason'] = (int) $value,
                2 => $out['session'] = (string) $value,
                3 => $out['id'] = (string) $value,
                4 => $out['lost'][] = (string) $value,
                6 => $out['cycle'][] = self::member((string) $value),
                default => null,
            };
        }
        return $out;
    }

    private static function member(string $bin): DeadlockMember
    {
        $m = ['process' => '', 'id' => '', 'access' => 0, 'heldBy' => '', 'heldIn' => 0, 'comment' => ''];
        foreach (Proto::fields($bin) as [$field, $value]) {
            match ($field) {
                1 => $m['process'] = (string) $value,
                2 => [$m['id'], $m['access']] = self::item((string) $value),
                3 => $m['heldBy'] = (string) $value,
                4 => $m['heldIn'] = (int) $value,
                5 => $m['comment'] = (string) $value,
                default => null,
            };
        }
        return new DeadlockMember(
            $m['process'],
            $m['id'],
            self::ACCESS[$m['access']] ?? (string) $m['access'],
            $m['heldBy'],
            self::ACCESS[$m['heldIn']] ?? (string) $m['heldIn'],
            $m['comment'],
        );
    }

    /** @return array{0: string, 1: int} a LockItem's id and access */
    private static function item(string $bin): array
    {
        $id = '';
        $access = 0;
        foreach (Proto::fields($bin) as [$field, $value]) {
            if ($field === 1) {
                $id = (string) $value;
            } elseif ($field === 2) {
                $access = (int) $value;
            }
        }
        return [$id, $access];
    }
}
