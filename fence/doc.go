// Package fence is the resource side of fencing: a register stored in
// Cassandra that refuses writes carrying a fencing token below the highest it
// has accepted, so a holder whose lease lapsed cannot overwrite the work of
// the owner that came after it (seed 002's version check at commit time,
// applied to lock leases; internal/fencing explains how tokens are drawn).
//
// # Why a lock alone is not enough
//
// A lease-based lock guarantees that at most one acquisition believes it
// holds the lock at any instant only if every holder notices, in time, that
// its lease ended. A holder that pauses (a GC pause, a stopped VM, a request
// stuck in a network buffer) between checking Lost and writing can wake up
// after its cells expired and another process took the lock, and write
// anyway. Nothing on the lock's side can stop that write; only the resource
// can, by remembering the newest token it has seen and refusing older ones.
//
// # Protocol
//
// Every acquisition of a Locker built with fencing (queuelock, shadowlock,
// combined and migration Options.Fencing) carries a token (lockstep.Fenced)
// drawn from the global time service (clock.Global.Next) after the lock was
// taken, so the tokens of successive owners of one lock id strictly
// increase (next section). A Register
// stores, per key, the value last committed and the token it was committed
// with. Commit applies a write when its token is at least the stored token,
// atomically with that comparison, and refuses it otherwise:
//
//   - a token above the stored one is a newer owner: applied;
//   - an equal token is the same owner writing again: applied (tokens are
//     unique per acquisition, so no other owner can present it);
//   - a lower token is an owner the lock has since passed on from: refused
//     with a *StaleTokenError wrapping lockstep.ErrStaleToken, naming the
//     token presented and the one stored. Nothing is written.
//
// # Why tokens are ordered as ownership
//
// Drawing after the claim is not enough by itself: a holder that stalls
// between its claim and its draw could return with its cells long expired
// and a token drawn after its successor's. So a lock keeps a token only if
// its lease — every lease it depends on, both halves for a combined lock —
// was still open when the token arrived, and otherwise, or when the draw
// fails, it returns no lock. Then, for successive owners A and B of one id:
// A's token returned while A's lease was open, so A's cells were alive at
// every replica until then; B claimed after that moment, so B's draw
// started after A's draw completed; and Next returns a value strictly
// greater than any returned by a Next that completed before it started. So
// t(B) > t(A), whatever mode each took the lock in, as long as all draw from
// one global time table. Legacy binaries not built on this library draw no
// token: a resource shared with them is protected only against this
// library's holders. Without fencing configured, a lock does not implement
// lockstep.Fenced at all, so it cannot be passed to Commit; a token of 0
// (from any other Fenced) Commit refuses.
//
// Mutual exclusion of the writes follows: once a write of owner n+1 is
// applied, the stored token is at least t(n+1) > t(n), so no write of owner
// n can be applied again, however late it arrives.
//
// # Storage
//
// The comparison and the write must be one atomic step on the resource's own
// row; Store names that one conditional operation (CommitIfNewer) and a read.
// Package cassandra implements it with lightweight transactions (Paxos) on a
// table package schema creates (fenced_resource by default: key, token,
// value); package model has an in-memory implementation for tests and
// examples, and package fence/fencetest the conformance suite both pass.
//
// A fenced row is never deleted and never carries a TTL: a row that vanished
// would forget its token and accept any stale write after it.
//
// # Unknown outcomes
//
// A commit whose outcome is unknown (a timeout while the transaction was in
// flight) returns an error wrapping lockstep.ErrUnknownOutcome, never success:
// the value may or may not have been written. Register.Load, which reads at
// the serial consistency level, tells which.
//
// Package fence depends only on the root package; it never imports gocql.
package fence
