<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Internal;

use Lockstep\Lockd\Exception\ConnectionException;

/**
 * Proto reads protobuf's binary wire format, as much as LockError needs:
 * varints and length-delimited fields (other wire types are skipped).
 *
 * @internal
 */
final class Proto
{
    /**
     * fields yields each field of a message as [number, value]: an int for
     * a varint, the bytes for a length-delimited field.
     *
     * @return \Generator<int, array{0: int, 1: int|string}>
     */
    public static function fields(string $bin): \Generator
    {
        $pos = 0;
        $len = strlen($bin);
        while ($pos < $len) {
            $key = self::varint($bin, $pos);
            $field = $key >> 3;
            switch ($key & 7) {
                case 0:
                    yield [$field, self::varint($bin, $pos)];
                    break;
                case 1:
                    $pos += 8;
                    break;
                case 2:
                    $n = self::varint($bin, $pos);
                    if ($n < 0 || $pos + $n > $len) {
                        throw new ConnectionException('lockd: a LockError detail that is not valid protobuf (a length past its end)');
                    }
                    yield [$field, substr($bin, $pos, $n)];
                    $pos += $n;
                    break;
                case 5:
                    $pos += 4;
                    break;
                default:
                    throw new ConnectionException('lockd: a LockError detail that is not valid protobuf (wire type ' . ($key & 7) . ')');
            }
        }
    }

    private static function varint(string $bin, int &$pos): int
    {
        $v = 0;
        for ($shift = 0; $shift < 64; $shift += 7) {
            if ($pos >= strlen($bin)) {
                throw new ConnectionException('lockd: a LockError detail that is not valid protobuf (a varint past its end)');
            }
            $b = ord($bin[$pos++]);
            $v |= ($b & 0x7f) << $shift;
            if ($b < 0x80) {
                return $v;
            }
        }
        throw new ConnectionException('lockd: a LockError detail that is not valid protobuf (a varint of more than 10 bytes)');
    }
}
