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
// lockd releases its locks, reports them lost on WatchSession's stream
// (EXPIRED, with their handles) and to the next call naming the session
// (Aborted, SESSION_EXPIRED, with the same handles), and logs it. A lock
// whose lease the library loses (Lock.Lost) is reported on the stream as
// LOCK_LOST. Lock calls of a session that ends are cancelled. Locks are
// reentrant per session (lockstep.WithReentrancy, keyed by the session).
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
// Without Principals the server is in open mode (cmd/lockd allows it on
// loopback only). With them, every call must authenticate, by a bearer token
// whose SHA-256 the principals file lists, or a verified client certificate
// (mTLS) whose Common Name or DNS SAN it lists. A principal may lock only
// ids under its granted prefixes, and may use, inspect (DescribeSession,
// WatchSession), keep alive, close and unlock only the sessions it opened.
// Refusals are Unauthenticated or PermissionDenied with a reason, and each
// is logged at Warn: the log is the operator's record, the error the
// caller's. A prefix grants ids, not their ancestors: the intention locks a
// hierarchical id takes on its ancestors are part of locking it.
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
