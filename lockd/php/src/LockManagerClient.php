<?php

declare(strict_types=1);

namespace Lockstep\Lockd;

use Lockstep\Lockd\Exception\LockdException;
use Lockstep\Lockd\Exception\LostException;
use Lockstep\Lockd\Internal\Names;
use Lockstep\Lockd\Internal\Session;
use Lockstep\Lockd\Internal\Transport;

/**
 * LockManagerClient is one lockd session, seed 003's client (Appendix A),
 * over lockd's HTTP/JSON face (Connect). The constructor opens the session;
 * close() (or the destructor) ends it, and lockd releases its locks.
 *
 * PHP has no background thread, so the session is kept alive by calls: a
 * KeepAlive goes out before any call once one is due (a third of the TTL
 * after the last, or half a lock's valid_for), and beside a blocking lock()
 * while it waits. Long work between calls must call keepAlive() at least
 * that often, and LockQuery::check() to learn of a loss (README.md, "When a
 * lock counts as lost").
 *
 * Not safe to share between processes; one client per process (or per
 * request) and its own session.
 */
final class LockManagerClient
{
    public const HIERARCHY = 1;
    public const MASK = 2;

    private readonly Session $session;
    private bool $closed = false;

    /**
     * Opens a session on the lockd at $url ("http://127.0.0.1:7420", or
     * https://). Bad options raise \InvalidArgumentException before any call.
     *
     * @param ?string $token          bearer token, sent as "Authorization: Bearer ..." (lockd's --principals)
     * @param ?float  $ttl            the session's TTL in seconds; null asks lockd's default (its --session-ttl, 10 s)
     * @param string  $name           a label for lockd's logs and lockctl sessions
     * @param string  $separator      lockd's --separator ("/" by default; "" for flat ids): what HIERARCHY and MASK check names against
     * @param ?string $caFile         PEM CA bundle to verify lockd's certificate (default: the system's)
     * @param ?string $certFile       PEM client certificate, for lockd's --client-ca
     * @param ?string $keyFile        PEM key of $certFile
     * @param float   $connectTimeout seconds to connect (default 5)
     * @param float   $callTimeout    seconds a call other than a blocking lock() may take (default 10)
     */
    public function __construct(
        string $url,
        ?string $token = null,
        ?float $ttl = null,
        string $name = '',
        private readonly string $separator = '/',
        ?string $caFile = null,
        ?string $certFile = null,
        ?string $keyFile = null,
        float $connectTimeout = 5.0,
        float $callTimeout = 10.0,
        ?TestingKnobs $testingKnobs = null,
    ) {
        $scheme = parse_url($url, PHP_URL_SCHEME);
        if (!in_array($scheme, ['http', 'https'], true) || parse_url($url, PHP_URL_HOST) === null) {
            throw new \InvalidArgumentException("lockd client: url \"$url\": want http://host:port or https://host:port, lockd's address");
        }
        if ($ttl !== null && !($ttl > 0)) {
            throw new \InvalidArgumentException("lockd client: ttl $ttl: want a positive number of seconds, or null for lockd's default");
        }
        if (!($connectTimeout > 0) || !($callTimeout > 0)) {
            throw new \InvalidArgumentException("lockd client: connectTimeout $connectTimeout, callTimeout $callTimeout: want positive seconds");
        }
        if ($token !== null && ($token === '' || preg_match('/[\r\n]/', $token) === 1)) {
            throw new \InvalidArgumentException('lockd client: an empty token, or one with a line break: pass the bearer token itself, or null for none');
        }
        $tls = [];
        if ($scheme === 'http' && ($caFile ?? $certFile ?? $keyFile) !== null) {
            throw new \InvalidArgumentException("lockd client: caFile, certFile and keyFile need an https:// url, got \"$url\"");
        }
        if (($certFile === null) !== ($keyFile === null)) {
            throw new \InvalidArgumentException('lockd client: certFile and keyFile go together: pass both for a client certificate, or neither');
        }
        foreach ([CURLOPT_CAINFO => $caFile, CURLOPT_SSLCERT => $certFile, CURLOPT_SSLKEY => $keyFile] as $opt => $file) {
            if ($file === null) {
                continue;
            }
            if (!is_readable($file)) {
                throw new \InvalidArgumentException("lockd client: \"$file\" cannot be read: pass the path of a PEM file");
            }
            $tls[$opt] = $file;
        }
        $clock = $testingKnobs?->clock ?? static fn (): float => hrtime(true) / 1e9;
        $t = new Transport($url, $token, $tls, $connectTimeout, $callTimeout);
        $this->session = Session::open($t, $ttl, $name, $clock);
    }

    /**
     * getLockQuery makes a query of [name => LockQuery::READ or WRITE],
     * taken as one lock. $flags: HIERARCHY lets a name be a path under
     * lockd's separator ("orders/7"), MASK lets it end in "*" ("orders/*",
     * every child of orders). Each name is sent as the id exactly; a name
     * the flags do not allow raises InvalidRequestException (README.md,
     * "Query flags").
     *
     * @param array<array-key, int> $query
     */
    public function getLockQuery(array $query, int $flags = 0): LockQuery
    {
        return new LockQuery($this->session, Names::items($query, $flags, $this->separator));
    }

    /**
     * getToken returns the token of the session's identity: a secret that
     * lets another client of the same lockd share the identity and its
     * locks (setToken).
     *
     * @throws Exception\ConnectionException
     */
    public function getToken(): string
    {
        return (string) ($this->session->call('GetToken')['token'] ?? '');
    }

    /**
     * setToken makes this session share the identity $token names: it then
     * holds every lock the identity holds (returned) and every one it takes
     * later, and unlockAll() releases them. Nothing is released or taken
     * again. lockd refuses, changing nothing, a session that holds locks
     * and is its identity's last (HOLDS_LOCKS: unlockAll() first), and the
     * other cases of TokenException and PermissionException.
     *
     * @return list<HeldLock> the identity's locks
     * @throws Exception\TokenException
     * @throws Exception\PermissionException
     */
    public function setToken(string $token): array
    {
        $sent = $this->session->now();
        $r = $this->session->call('SetToken', ['token' => $token]);
        $out = [];
        foreach (($r['locks'] ?? []) as $h) {
            $out[] = $this->session->granted($h, $sent);
        }
        return $out;
    }

    /**
     * unlockAll releases every lock of the session's identity and keeps the
     * session open. It returns the handles released; if some had been lost
     * before, they are released all the same and LostException names them.
     *
     * @return list<string>
     * @throws LostException
     * @throws Exception\ConnectionException
     */
    public function unlockAll(): array
    {
        $r = $this->session->call('UnlockAll');
        $ids = array_map('strval', $r['lockIds'] ?? []);
        foreach ($ids as $h) {
            $this->session->forget($h);
        }
        $lost = array_map('strval', $r['lostLockIds'] ?? []);
        if ($lost !== []) {
            throw new LostException('lockd client: unlockAll(): locks ' . implode(', ', $lost) . ' had been lost before it released them', 'LOST', '', '', $lost, $this->session->id);
        }
        return $ids;
    }

    /**
     * keepAlive renews the session now and applies lockd's answer: each
     * lock's time moves to this call's send plus its valid_for; a lock the
     * answer leaves out is lost. Call it between steps of long work, more
     * often than every TTL/3 and every half valid_for.
     *
     * @throws Exception\SessionExpiredException the session had ended
     * @throws Exception\ConnectionException
     */
    public function keepAlive(): void
    {
        $this->session->keepAlive();
    }

    /** isLost says whether the session has ended (lapsed, or taken as lapsed): every lock it held is lost. */
    public function isLost(): bool
    {
        return $this->session->ended() !== null;
    }

    /** The session's id at lockd. */
    public function sessionId(): string
    {
        return $this->session->id;
    }

    /** The session's TTL in seconds, as lockd granted it. */
    public function ttl(): float
    {
        return $this->session->ttl;
    }

    /**
     * close ends the session: lockd releases its locks (the identity's, if
     * no other session shares it). Later calls raise; a second close() does
     * nothing. A session lockd already ended is not an error.
     *
     * @throws Exception\ConnectionException
     */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        try {
            if ($this->session->ended() === null) {
                $this->session->call('CloseSession');
            }
        } catch (Exception\SessionExpiredException) {
            // lockd ended it already
        } finally {
            $this->session->end(new LockdException("lockd client: session {$this->session->id} was closed: open a new client", 'CLOSED', '', '', [], $this->session->id));
        }
    }

    public function __destruct()
    {
        try {
            $this->close();
        } catch (LockdException) {
            // lockd releases the locks when the session's TTL passes
        }
    }
}
