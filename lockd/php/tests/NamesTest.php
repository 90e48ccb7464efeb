<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Tests;

use Lockstep\Lockd\Exception\InvalidRequestException;
use Lockstep\Lockd\Internal\Names;
use Lockstep\Lockd\LockManagerClient as C;
use Lockstep\Lockd\LockQuery as Q;
use PHPUnit\Framework\TestCase;

/** What getLockQuery sends for each flag, and each refusal, without a lockd. */
final class NamesTest extends TestCase
{
    public function testEachNameIsSentAsGivenWithItsAccessAndWhatItsFlagsDeclare(): void
    {
        $flat = ['flat' => true, 'noMask' => true];
        $this->assertSame(
            [['id' => 'inv-1', 'access' => 'ACCESS_EXCLUSIVE'] + $flat, ['id' => '42', 'access' => 'ACCESS_SHARED'] + $flat],
            Names::items(['inv-1' => Q::WRITE, '42' => Q::READ], 0, '/'),
        );
        $this->assertSame([['id' => 'orders/7/lines', 'access' => 'ACCESS_EXCLUSIVE', 'noMask' => true]], Names::items(['orders/7/lines' => Q::WRITE], C::HIERARCHY, '/'));
        $this->assertSame([['id' => 'orders/*', 'access' => 'ACCESS_SHARED', 'flat' => true]], Names::items(['orders/*' => Q::READ], C::MASK, '/'));
        $this->assertSame([['id' => 'a.b.*', 'access' => 'ACCESS_EXCLUSIVE'], ['id' => 'a.c', 'access' => 'ACCESS_EXCLUSIVE']], Names::items(['a.b.*' => Q::WRITE, 'a.c' => Q::WRITE], C::HIERARCHY | C::MASK, '.'));
        $this->assertSame([['id' => 'a/b', 'access' => 'ACCESS_EXCLUSIVE'] + $flat], Names::items(['a/b' => Q::WRITE], 0, ''), 'flat ids: the separator is an ordinary character');
    }

    /** @return array<string, array{0: array<array-key, mixed>, 1: int, 2: string, 3: string}> */
    public static function refusals(): array
    {
        return [
            'unknown flag' => [['a' => Q::WRITE], 4, '/', 'want a combination of'],
            'empty query' => [[], 0, '/', 'an empty query'],
            'bad type' => [['a' => 7], 0, '/', 'want LockQuery::READ (2) or LockQuery::WRITE (3)'],
            'list instead of map' => [['a'], 0, '/', '"0" => \'a\''],
            'empty name' => [['' => Q::WRITE], 0, '/', 'an empty name'],
            'path without HIERARCHY' => [['a/b' => Q::WRITE], 0, '/', 'pass LockManagerClient::HIERARCHY'],
            'mask without MASK' => [['a/*' => Q::WRITE], C::HIERARCHY, '/', 'pass LockManagerClient::MASK'],
            'mask before the end' => [['a/*/b' => Q::WRITE], C::HIERARCHY | C::MASK, '/', 'before other segments'],
            'mask of nothing' => [['*' => Q::WRITE], C::MASK, '/', 'a mask of nothing'],
            'mask of a path without HIERARCHY' => [['a/b/*' => Q::WRITE], C::MASK, '/', 'pass LockManagerClient::HIERARCHY'],
            'empty segment' => [['a//b' => Q::WRITE], C::HIERARCHY, '/', 'an empty segment'],
            'trailing separator' => [['a/' => Q::WRITE], C::HIERARCHY, '/', 'an empty segment'],
            'HIERARCHY on flat ids' => [['a' => Q::WRITE], C::HIERARCHY, '', 'need lockd\'s separator'],
            'MASK on flat ids' => [['a' => Q::WRITE], C::MASK, '', 'need lockd\'s separator'],
        ];
    }

    /**
     * @dataProvider refusals
     * @param array<array-key, mixed> $query
     */
    public function testRefusal(array $query, int $flags, string $sep, string $says): void
    {
        try {
            Names::items($query, $flags, $sep);
            $this->fail('accepted');
        } catch (InvalidRequestException $e) {
            $this->assertSame('INVALID_ID', $e->reason());
            $this->assertStringContainsString($says, $e->getMessage());
        }
    }
}
