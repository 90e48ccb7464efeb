// Package lockd is the lock manager as a network service: the handler of
// lockstep.v1.LockService (proto/lockstep/v1/lockd.proto), which any
// language's client can call over gRPC or plain HTTP/JSON. cmd/lockd serves
// it.
//
// # Where it sits
//
// lockd is a thin layer over the library, in the manner of etcd's v3lock
// service: each RPC authenticates the caller, checks its session and its
// grants, and calls the process's lockstep.GroupLocker — a
// migration.Locker, so every lockd is an ordinary process of the fleet, in
// its census and following its phase, and Go processes locking in-process
// share the same locks with lockd's clients. There is no second
// implementation of the algorithm here.
//
//	client ──gRPC / Connect / JSON──▶ Handler ─▶ authenticate ─▶ session ─▶ prefixes
//	                                                                      │
//	                           migration.Locker (Lock, TryLock, LockGroup) ◀┘
//
// # Sessions
//
// A client opens a session with a TTL and keeps it alive: KeepAlive, or any
// call naming it, pushes its expiry one TTL ahead. When a session lapses,
// lockd releases its locks (unless another session shares its identity),
// reports them lost on WatchSession's stream
// (EXPIRED, with their handles) and to the next call naming the session
// (Aborted, SESSION_EXPIRED, with the same handles), and logs it. A lock
// whose lease the library loses (Lock.Lost) is reported on the stream as
// LOCK_LOST. Lock calls of a session that ends are cancelled. Locks are
// reentrant per session (each identity is a lockstep.Unit of the
// Locker); HeldLock.reentrant is true only for a Lock that took nothing,
// every member already held and only counted (lockstep.IsReentrant of the
// library's Lock). A LockItem's flat and no_mask are the request's
// lockstep.Flags: they declare how the caller reads the id, and an id the
// server's separator reads otherwise is refused with INVALID_ID.
//
// A Lock or TryLock that fails names, in LockError.id, the member that
// stopped it: an id asked, or an ancestor whose intention lock met a holder.
// A LOCKED message also names the sessions of this lockd whose identity
// holds that member (id and name), to a caller that may see them: the
// holder's own principal, a principal granted list_sessions, and anyone in
// open mode. Other callers learn only the id.
//
// Each answer that grants a lock (HeldLock.valid_for) and each KeepAlive
// answer (KeepAliveResponse.valid_for, by handle) says how long the lock
// is certain to stay valid even if lockd renews nothing more: the
// library's lockstep.Expiring, computed as lockd answers. A client counts
// it from the send of its call and takes the lock as lost when it runs
// out without a later answer naming the lock (package client does; so
// does the Python client). So a lockd that stops renewing — paused, cut
// off from Cassandra, or on a host that vanished without closing its
// connections — costs its clients their locks no later than its own lease
// deadlines, before another process can be granted them
// (docs/algorithms.md, section 2, Corollary 1a).
//
// # Seed 003's extras
//
// The session's identity (below) is the unit of work: every acquisition is
// made by the identity's lockstep.Unit, so reentrancy,
// UnlockAll and the holdings a deadlock detector sees are the identity's,
// the session's own until SetToken joins it to another. A Lock's comment
// travels as its unit's comment (Unit.Commented). It is a protobuf string, so UTF-8: the
// Go client refuses another comment before sending it, and the server's
// decoding refuses it from any other client (InvalidArgument); a cycle
// member's comment from a Go process that is not UTF-8 reaches the client
// with each invalid byte replaced by U+FFFD. With the Locker's deadlock detection on
// (cmd/lockd turns it on), a Lock chosen to break a cycle of waits fails
// Aborted with reason DEADLOCK and the cycle (process, waited id and access,
// holder, comment per member) in the LockError (the holder is the library's
// DeadlockMember.HeldBy: the Owner() of the library handle that holds the
// id, at whichever lockd or Go process holds it, which is not the
// "<session>/<handle>" a client's Lock.Owner() shows); the cycle may run through
// other sessions, other lockds and Go processes of the fleet alike.
// UnlockAll calls the library's UnlockAll for the identity and then each
// handle's Unlock (nil for what it released; a retry for what it could
// not), and keeps the session open. Masks ("orders/*") are ordinary Lock
// items, planned by the library as their parent node; a mask in an
// intention access is refused with INVALID_ID, as the library refuses it.
//
// # Identities: getToken and setToken
//
// Seed 003 (§3.1–3.2, Appendix A) gives each client a real identifier and
// an effective one, which owns its locks: getToken reads it, setToken takes
// another client's, which hands its locks over without releasing them, and
// the locks are released when the last client with the identifier leaves
// it. In lockd the real identifier is the session and the effective one
// its identity: every session opens with an identity of its own, and every
// acquisition is made by the identity's lockstep.Unit, so
// reentrancy, UnlockAll and deadlock holdings are the identity's.
//
//   - GetToken returns the identity's token, "lkt1.<instance>.<secret>"
//     (128 random bits), and changes nothing. It is a credential.
//   - SetToken(session, token) makes the session join the token's identity:
//     it holds every lock the identity holds — the same lockstep.Lock
//     values, so the same leases, owners and fencing tokens; no request
//     reaches the store — and every lock any of its sessions takes later,
//     including locks taken after the token was read (the token names the
//     identity, not a list of locks). Its handles are the identity's:
//     DescribeSession of any of its sessions lists them, Unlock from any of
//     them releases one, UnlockAll from any releases all.
//   - The giver's session is unchanged: it keeps the identity and may go
//     on locking and unlocking. A handover is GetToken, SetToken, then the
//     giver's CloseSession.
//   - A session leaves its identity when it closes, lapses, or joins
//     another (SetToken). The last session to leave releases the
//     identity's locks; a lapse then reports them lost to it (EXPIRED,
//     SESSION_EXPIRED), as for a session alone. A session that leaves while others
//     stay releases nothing and loses nothing: its watch ends with no lost
//     lock; its Lock calls in flight are cancelled as always. A LOCK_LOST
//     goes to every session of the identity.
//   - Seed 003's setToken releases the locks of a client that was the last
//     with its old identifier. lockd refuses instead (HOLDS_LOCKS), so that
//     no lock is released as a side effect: UnlockAll first, or adopt with
//     a fresh session. It refuses too while the session has a Lock in
//     flight, whose lock would belong to the identity it left.
//
// Who may adopt. A token is a bearer secret, but holding one is not enough:
// a principal may adopt an identity opened by a session of its own
// principal, or of a principal its "adopt_from" lists (Principal.AdoptFrom),
// and in open mode anyone may. An adopter's new Locks are still checked
// against its own prefixes, and it may inspect only its own sessions; the
// adopted handles are the grant: their ids need not be under its prefixes.
// Refusals, each logged and changing nothing: a malformed token
// (InvalidArgument INVALID_TOKEN; the error never echoes it), one of
// another lockd or of this one before a restart, without a peer key
// (FailedPrecondition OTHER_LOCKD; below for peer tokens), one whose
// sessions have all ended (NotFound UNKNOWN_TOKEN: its locks were
// released), another principal's without a grant (PermissionDenied
// NOT_YOUR_TOKEN), the session's own identity (FailedPrecondition
// OWN_TOKEN), and HOLDS_LOCKS above.
//
// Why in lockd, and per lockd. Within one lockd every lock is a value the
// lockd's own Locker returned, so sharing it between sessions moves nothing
// in the store: exclusion, leases and fencing are untouched, in every mode
// of the migration (combined and legacy holds included; the library's
// refusal to Share a combined lock, ErrIncompatibleMode, cannot arise here,
// and would map to FailedPrecondition INCOMPATIBLE_MODE as every
// ErrIncompatibleMode does). A token is not accepted by another lockd
// (OTHER_LOCKD) unless the lockds share a peer key (below).
//
// # Across lockds: peer tokens
//
// Moving a hold between processes is the library's lockstep.Sharer
// (Share, Adopt; docs/algorithms.md §8.7 and §7.4), which migration.Locker
// implements for locks taken in mode new. With Options.PeerKey (cmd/lockd:
// --peer-key-file; at least 32 bytes, the same on every lockd of the
// cluster), GetToken returns a peer token,
// "lkt2.<instance>.<secret>.<payload>.<mac>": the identity token, then the
// identity's owner principal and its locks as the library's share tokens
// (Share marks them shared: no request, and from then on an Unlock of them
// here leaves them to another holder instead of deleting them), then an
// HMAC-SHA256 of all of it under the key.
//
//   - On the lockd that issued it, a peer token is its identity token: all
//     of the above applies.
//   - On another lockd with the key, SetToken verifies the MAC and judges
//     adopt_from on the owner the payload names, as within one lockd; then
//     it adopts each lock through its own Locker (migration.Locker's Adopt:
//     admitted as a Lock in mode new, counted in its census, renewed by
//     its own process; the same owners and fencing tokens) into a new
//     identity of this lockd, and the session moves there (HOLDS_LOCKS as
//     above). The giver's sessions keep their identity; a handover is
//     GetToken, SetToken on the other lockd, then the giver's CloseSession,
//     whose release leaves the locks to the adopter. The last holder, on
//     either lockd, releases.
//   - The token names the locks the identity held when GetToken ran (call it
//     again for later ones), each acquisition once: a handle that only
//     counted a lock another handle took is named only once that handle is
//     unlocked. Locks that share a member (siblings sharing their parent's
//     intention lock) are adopted together: the shared member once, counted
//     by the later locks. The two lockds' identities are apart from
//     then on: a lock either takes later is its own. A second session of
//     the adopting lockd joins the adopted identity with that lockd's own
//     GetToken token, not the peer token again.
//   - Refusals, each logged and changing nothing (a failed adoption leaves
//     what it adopted; the giver still holds): no key here (OTHER_LOCKD); a
//     MAC that does not verify, another cluster's key or an edited token
//     (INVALID_TOKEN); another principal's without a grant
//     (NOT_YOUR_TOKEN); a lock taken in mode legacy or combined, which
//     cannot move (FailedPrecondition INCOMPATIBLE_MODE, for the whole
//     token); no lock of the token still held (UNKNOWN_TOKEN); a phase or
//     flag that forbids new on this lockd (INCOMPATIBLE_MODE).
//   - A lock the token names that is no longer held (unlocked, or its
//     lease lapsed, since GetToken ran) is skipped: the library's Adopt
//     finds no holder and writes nothing, so it is not adopted, and the
//     answer names only the locks adopted. The rest are adopted.
//
// The key authenticates lockds to each other; the token stays a bearer
// credential, as within one lockd, and the share tokens in it are
// capabilities on the locks (anyone who can write the lock table can break
// them already).
//
// # Errors
//
// Every error carries a standard status code and one LockError detail with a
// reason (the proto file has the table). TryLock meeting a holder is
// FailedPrecondition (LOCKED), not Aborted: Aborted is kept for loss (LOST,
// SESSION_EXPIRED), so that "try later" and "stop the work" differ by code.
//
// # Security
//
// docs/security.md covers lockd's security end to end for operators. Without
// Principals the server is in open mode (cmd/lockd allows it on loopback
// only). With them, every call must authenticate, by a bearer token
// whose SHA-256 the principals file lists, or a verified client certificate
// (mTLS) whose Common Name or DNS SAN it lists. A principal may lock only
// ids under its granted prefixes, and may use, inspect (DescribeSession,
// WatchSession), keep alive, close and unlock only the sessions it opened;
// ListSessions, which shows every principal's sessions (lockctl sessions),
// only if granted list_sessions.
// Refusals are Unauthenticated or PermissionDenied with a reason, and each
// is logged at Warn: the log is the operator's record, the error the
// caller's. A prefix grants ids, not their ancestors: the intention locks a
// hierarchical id takes on its ancestors are part of locking it. A mask
// ("a/b/*") is granted only if every id it names is: the text before its
// "*" must start with a granted prefix. The mask's own text is not checked
// alone, since a literal prefix "a/*" would then grant the mask "a/*", which
// names every child of "a". Taking the mask locks its parent node itself
// ("a/b"), the over-locking every mask costs, as taking "a/b/x" takes an
// intention lock on it.
//
// Credentials are checked from the request's headers and TLS state alone
// (connectrpc.com/authn's middleware), before any byte of its body is read:
// a refused request's body is neither decoded nor read, and over HTTP/1.1
// its connection is closed rather than drained. Server.SetPrincipals swaps
// the table (lockd reloads its file on SIGHUP): live sessions stay, owned by
// their principal's name, and calls from then on are checked by the new
// table. gRPC server reflection (grpcurl, buf curl) takes the same
// credentials as the lock service, any principal, none in open mode: it
// tells nothing the proto file does not, but it is a stream a stranger
// could hold open. Health takes none, so that probes need none.
//
// # Limits
//
// Options.Limits bound what is read before and after trust, each zero
// field meaning its default (lockd's flag in brackets):
//
//	MaxBodyBytes             1 MiB  a request body and each message in it (--max-body-bytes)
//	MaxSessionName           256    bytes of OpenSession's name (--max-session-name)
//	MaxComment               256    bytes of Lock's comment, and its ceiling (--max-comment)
//	MaxIDsPerRequest         128    items of one Lock or TryLock (--max-ids-per-request)
//	MaxSessionsPerPrincipal  1024   live sessions of one principal (--max-sessions-per-principal)
//	MaxWaitsPerSession       64     Lock calls of one session in flight (--max-waits-per-session)
//
// A body whose declared length is over the limit is refused before any of
// it is read; one of undeclared length is cut as it is read. A request over
// a size limit is InvalidArgument (INVALID_ARGUMENT), a count at its limit
// ResourceExhausted; the message names the limit and the flag that raises
// it, and the refusal changes nothing: no session is opened, nothing is
// locked, and a refused Lock is not counted as a wait. TryLock does not
// wait, so it is not counted in MaxWaitsPerSession. The HTTP server's
// timeouts and header limit are the command's (cmd/lockd).
//
// # Metrics
//
// With Options.Metrics (NewMetrics, a prometheus.Collector) the Server
// counts sessions open, calls answered by method and status code, error
// answers by LockError reason, and identity joins; Metrics lists the
// series. Its labels carry no session, id, principal or error text, so
// the series are bounded. cmd/lockd serves them at /metrics with its
// Locker's (the adapters/prometheus Observer, lockstep_*) and the Go
// runtime's, in a registry of its own.
//
// # Why Connect
//
// connectrpc.com/connect serves gRPC, gRPC-Web and its own HTTP protocol
// (unary calls as a plain POST of JSON) from one generated net/http handler,
// so one server answers a grpcio client and curl alike, with the standard
// health protocol (connectrpc.com/grpchealth) beside it, on the standard
// library's HTTP server: no second server stack, no proxy, and a small
// dependency set (connect and protobuf) kept out of the library's module.
//
// Server is safe for concurrent use. Its goroutines (one expiry loop per
// session, one lease watcher per held lock) are owned by it and stopped by
// Close.
package lockd
