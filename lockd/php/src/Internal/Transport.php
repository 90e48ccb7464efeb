<?php

declare(strict_types=1);

namespace Lockstep\Lockd\Internal;

use Lockstep\Lockd\Exception\ConnectionException;
use Lockstep\Lockd\Exception\LockdException;

/**
 * Transport makes lockd's calls on Connect's JSON protocol: one POST of
 * application/json to <url>/lockstep.v1.LockService/<Method> per call, the
 * call's deadline in Connect-Timeout-Ms, the bearer token in Authorization.
 * A 200 answer is the response message as JSON; any other is Connect's
 * JSON error, which Errors turns into an exception.
 *
 * @internal
 */
final class Transport
{
    private readonly string $base;
    /** @var array<int, mixed> */
    private readonly array $curlOptions;

    /**
     * @param array<int, mixed> $tls curl options for TLS (CURLOPT_CAINFO, ...)
     */
    public function __construct(
        string $url,
        private readonly ?string $token,
        array $tls,
        private readonly float $connectTimeout,
        private readonly float $callTimeout,
    ) {
        $this->base = rtrim($url, '/') . '/lockstep.v1.LockService/';
        $this->curlOptions = $tls + [
            CURLOPT_POST => true,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_CONNECTTIMEOUT_MS => (int) ceil($connectTimeout * 1000),
            CURLOPT_NOSIGNAL => true,
        ];
    }

    /**
     * handle prepares one call. $wait is the call's deadline sent to lockd
     * (a Lock's timeout), null for none; curl itself gives up a little
     * after it (lockd answers DEADLINE first), or after the client's call
     * timeout when there is none and the call is not a wait.
     *
     * @param array<string, mixed> $body
     */
    public function handle(string $method, array $body, ?float $wait, bool $blocking = false): \CurlHandle
    {
        $h = curl_init($this->base . $method);
        if ($h === false) {
            throw new ConnectionException("lockd $method: curl_init failed");
        }
        $headers = ['Content-Type: application/json', 'Connect-Protocol-Version: 1'];
        if ($this->token !== null) {
            $headers[] = 'Authorization: Bearer ' . $this->token;
        }
        $limit = $this->callTimeout;
        if ($wait !== null) {
            $headers[] = 'Connect-Timeout-Ms: ' . max(1, (int) ceil($wait * 1000));
            $limit = $wait + $this->callTimeout;
        } elseif ($blocking) {
            $limit = 0.0; // lockd's --max-wait bounds the wait; the session's deadline ends it here (Session::await)
        }
        $opts = $this->curlOptions + [
            CURLOPT_HTTPHEADER => $headers,
            CURLOPT_POSTFIELDS => json_encode($body === [] ? new \stdClass() : $body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES),
            CURLOPT_TIMEOUT_MS => (int) ceil($limit * 1000),
        ];
        curl_setopt_array($h, $opts);
        return $h;
    }

    /**
     * result reads a finished handle's answer: the response message, or the
     * exception lockd's error (or curl's) maps to, returned rather than
     * thrown so the caller can apply it first.
     *
     * @return array<string, mixed>|LockdException
     */
    public function result(string $method, \CurlHandle $h, string $body, int $errno): array|LockdException
    {
        if ($errno !== 0) {
            return new ConnectionException(sprintf(
                'lockd %s at %s: curl error %d (%s): check the address, that lockd runs, and the TLS options',
                $method,
                $this->base,
                $errno,
                curl_strerror($errno),
            ));
        }
        $status = (int) curl_getinfo($h, CURLINFO_RESPONSE_CODE);
        if ($status !== 200) {
            return Errors::fromAnswer($method, $status, $body);
        }
        $json = json_decode($body, true);
        if (!is_array($json)) {
            return new ConnectionException("lockd $method: a 200 answer that is not a JSON object: " . substr($body, 0, 200));
        }
        return $json;
    }

    /**
     * call makes one call and waits for its answer.
     *
     * @param array<string, mixed> $body
     * @return array<string, mixed>|LockdException
     */
    public function call(string $method, array $body, ?float $wait = null): array|LockdException
    {
        $h = $this->handle($method, $body, $wait);
        $out = curl_exec($h);
        return $this->result($method, $h, is_string($out) ? $out : '', curl_errno($h));
    }

    /** seconds parses a protobuf Duration in JSON ("13.999845s"). */
    public static function seconds(mixed $d): float
    {
        if (!is_string($d) || !str_ends_with($d, 's')) {
            return 0.0;
        }
        return (float) substr($d, 0, -1);
    }
}
