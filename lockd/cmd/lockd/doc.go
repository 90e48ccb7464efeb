// Command lockd serves the lockstep lock manager over the network
// (lockstep.v1, package lockd): gRPC, gRPC-Web and HTTP/JSON on one port,
// with the standard gRPC health service.
//
//	go run -C lockd ./cmd/lockd                 # embedded model, open mode, 127.0.0.1:<free port>
//	go run -C lockd ./cmd/lockd --listen 127.0.0.1:7420
//	LOCKSTEP_HOSTS=10.0.0.1 go run -C lockd ./cmd/lockd --keyspace locks --principals p.json
//
// Its first line on stdout says where it serves and on which store (the
// cluster and keyspace, or the embedded model); the second its version:
// lockd --version prints that line alone and exits ("lockd VERSION commit
// COMMIT (lockstep X, goN)": the module's tag, or lockstep.Version in a build
// that recorded none, and the commit it was built from where the build
// recorded one). It logs JSON on stderr. With no connection setting it runs on the embedded
// model store (an in-memory Cassandra), with the fleet phase moved to new.
// Without --principals it is in open mode: every caller may take every id,
// so lockd refuses a non-loopback --listen without --principals.
//
// Cluster: lockctl's connection flags, with the same names, values and
// LOCKSTEP_* variables (the flag wins; package cassandra's ConnectOptions
// parses both): --hosts ($LOCKSTEP_HOSTS, then $CASSANDRA_HOSTS), --port,
// --keyspace, --consistency, --local-dc, --timeout, --username with
// $LOCKSTEP_PASSWORD or --password-file, --tls, --tls-ca, --tls-cert,
// --tls-key, --tls-server-name, --tls-insecure-skip-verify. Any of them,
// given or set, makes lockd serve that cluster (a global store at the given
// consistency) instead of the embedded model. lockd creates nothing there:
// the keyspace and its tables come from lockctl schema apply, and lockd's
// role needs the application role's grants of docs/security.md (SELECT and
// MODIFY on queue_lock, legacy_main, legacy_shadow, fleet_census,
// global_time and lock_waits, SELECT on fleet_phase). It follows the fleet's phase as any
// process does. A cluster that cannot be reached, or a schema or grant
// missing (Ready fails), stops lockd at start with what to do.
//
// Security: --principals names the JSON file of principals and their id
// prefixes (lockd.Principals); --server-cert and --server-key serve TLS;
// --client-ca verifies client certificates and --require-client-cert
// refuses handshakes without one. Each flag has a LOCKSTEP_LOCKD_*
// variable, read when the flag is not given.
//
// SIGHUP reloads the credentials: the principals file, and --server-cert,
// --server-key and --client-ca. Every file is read first and the new
// credentials are put in use only if all read well; otherwise lockd keeps
// those in use and logs why ("lockd: reload failed; the credentials in use
// are kept"). Sessions are untouched: a session stays its principal's and
// keeps its locks; a revoked token is refused from the next call; new TLS
// handshakes take the new certificate while open connections keep theirs.
// Open mode cannot be switched on or off by a reload.
//
// Limits (package lockd's Options.Limits; each refusal names its flag):
// --max-body-bytes (1 MiB), --max-session-name (256 bytes), --max-comment
// (256 bytes, the most), --max-ids-per-request (128),
// --max-sessions-per-principal (1024), --max-waits-per-session (64). A
// request's body is read only once its credentials passed. The HTTP server
// reads a request's headers within --read-header-timeout (10s) and at most
// --max-header-bytes (64 KiB) of them, its body within --read-timeout
// (30s, counted from the headers), writes each piece of a response within
// --write-timeout (30s), and closes a connection idle for --idle-timeout
// (2m). The read and write timeouts bound the body and each write, not the
// whole call: a blocking Lock waits up to --max-wait and WatchSession
// streams for its session's life, and a whole-call deadline (net/http's
// ReadTimeout and WriteTimeout) would cut them; over HTTP/1.1 a passed read
// deadline would even cancel a waiting Lock. So the read deadline is lifted
// once the body is read, and the write deadline after each flush. A
// connection that sends headers and a byte of its body is answered and
// closed when --read-timeout passes (without a valid credential at once).
//
// Reflection: gRPC server reflection is served, so grpcurl and buf curl
// need no proto file (grpcurl -plaintext 127.0.0.1:PORT list). With
// --principals it takes a credential like any call (grpcurl -H
// 'authorization: Bearer TOKEN'); health and /metrics take none.
//
// Each lockd is an ordinary fleet process: a migration.Locker following the
// phase, in the census, with hierarchical ids (--separator, default "/"),
// fencing tokens and deadlock detection (--deadlock-detection, on by
// default: waits longer than a second are published in lock_waits, so a
// cycle through lockd sessions and Go processes alike is broken with a
// DEADLOCK error). --intention-range (off by default) sets the queue lock's
// Options.IntentionRange: the IS and IX cells of locks below a hot ancestor
// stop being read by the intention claims on it; it is a stored format, to
// turn on once every process locking the tables reads it. --local-handoff N
// (8 by default; 0 turns it off) hands an exclusive lock a session unlocks to the next
// session of the same lockd waiting for it, in memory and with the next
// fencing token of a block reserved in the store, up to N times in a row before releasing it in the store
// (migration.Options.LocalHandoff). Such a lock is shared, and so moves
// to another lockd with its session, when a peer token names it; from then
// on it is released in the store at its Unlock, not handed on or kept
// (docs/algorithms.md, section 4.15, "Sharing a grant"). --retain D (20ms by default; 0 turns it off; needs
// --local-handoff) keeps such a lock unlocked with nobody here waiting held
// for up to D, for the next Lock of it on this lockd, and releases it at
// once when another process's waiter shows (migration.Options.Retain).
// --evidence (off by default) is the queue lock's Options.Evidence:
// "record" writes each lock's token into its partition as it is released,
// "use" also draws a lock of mode new's token beside its claim instead of
// after it; a fleet goes to record everywhere before any process uses it
// (docs/algorithms.md, section 5.3).
//
// --lock-ttl sets the TTL of the lock cells it writes (the library's
// Options.TTL, default 30s), which must equal every other process's that
// locks the same tables (docs/algorithms.md, A7): a lockd that is killed, paused or cut off from
// the cluster keeps its clients' locks at most about that long, and a
// paused one finds them lost when it resumes (its clients' Unlock says
// LOST). A client cut off from lockd loses its session after the session's
// TTL, and with it its locks (faults_integration_test.go shows all three on
// a real node).
//
// Session TTL against --lock-ttl. A lockd paused (or frozen, or cut off
// from Cassandra, or from its clients without its connections closing)
// while it holds locks renews them no more, and its clients hear nothing.
// The clients of this module (lockd/client, and the Python client) do not
// count on the session's TTL for that: each grant and KeepAlive answer says
// how long each lock is certain to stay valid (valid_for, the library's
// lockstep.Expiring), and they take a lock as lost when that time, counted
// from the send of their call, runs out — before lockd's own lease ends,
// so before another process can take the lock, whatever the session TTL.
// A client of another implementation that ignores valid_for has only the
// session TTL, counted from its last answered send: it must then keep the
// session TTL at most lockd's lease window, (lock TTL − 1s −
// MaxServerSkew)/2 with lockd's MaxServerSkew of 1s (14s with the default
// lock TTL of 30s; 2s with --lock-ttl 6s), since the lease's last renewal
// can be that old when lockd stops. The robustness suite's fleets keep
// both rules (ROBUSTNESS.md, "Workers through lockd").
//
// Metrics: GET /metrics on the --listen address serves Prometheus's text
// format (--metrics=false turns it off): the Locker's events through
// adapters/prometheus (lockstep_acquisitions_total, lockstep_hold_seconds,
// lockstep_leases_lost_total, ...), lockd's own (lockd_sessions_open,
// lockd_rpcs_total{method,code}, lockd_error_answers_total{reason},
// lockd_identity_joins_total), and the Go runtime's and the process's.
// The endpoint takes no credential: the series carry no id, session or
// principal. Under --require-client-cert the scraper needs a client
// certificate like any caller.
//
// Web view: --ui (LOCKSTEP_LOCKD_UI) serves a read-only page at /ui/ on
// the --listen address: the phase, the census and what blocks the next
// move, the hottest ids, the sessions, recent deadlocks and charts
// (lockd.Server.View). In principals mode only principals granted
// "web_view" see it, and only ids under their prefixes; a browser logs in
// once with a token (docs/security.md, "The web view"). It writes nothing.
// /ui/api/<panel> answers each panel's data as JSON under the same grant
// and prefixes (lockctl view prints it).
//
// On SIGINT or SIGTERM it shuts down gracefully: health turns NOT_SERVING;
// the sessions whose clients can move them to another lockd (their
// identity read a peer token: the lockds share --peer-key-file) are told
// DRAINING and given up to --drain (default 5s) to move there with their
// locks and close the session here, which releases nothing; every other
// session, and one still here when the drain ends, is closed (its
// watchers are told CLOSED, "the server is shutting down") and its locks
// released; then the HTTP server drains and the Locker leaves the census
// (docs/algorithms.md §8.8, "Draining"). A rolling restart of the lockds
// of a cluster so keeps the locks of every client given more than one.

package main
