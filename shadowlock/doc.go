// Package shadowlock is the legacy shadow-table lock, kept exactly as the
// fleet being migrated runs it: processes not built on this library read and
// write the same rows, so its behaviour and storage format are frozen.
//
// Use it only beside legacy processes, or through package migration (mode
// legacy, and one half of mode combined). It is safe but not fair; a fleet
// that can move to the queue lock (package queuelock) should, with package
// migration. The package needs only a lockstep.Store.
//
// # Storage
//
// Two tables, partitioned by lock id, one empty cell per owner id, each with
// the TTL:
//
//	legacy_main    row = lock id   column = owner id   the holder
//	legacy_shadow  row = lock id   column = owner id   contenders announce themselves
//
// Any cell in a legacy row counts as some owner's and blocks others until it
// is deleted or expires. docs/legacy-format.md gives the format byte for
// byte — statements, timestamps, TTLs, consistency levels — and what a
// legacy binary must do to share it.
//
// # Use
//
// Build one Locker per process with New (nil options mean defaults), call
// Ready at startup, Close on shutdown. Lock retries rounds, with random
// backoff, until it holds the lock or ctx ends; TryLock fails with
// lockstep.ErrLocked when someone holds it, and retries a merely concurrent
// attempt up to lockstep.MaxTryAttempts rounds. Every goroutine contends in
// the store on its own, as the legacy code does.
//
// # Guarantees
//
// Mutual exclusion. Two acquisitions of this package never both hold a lock
// with Lost() open: each writes its shadow cell, reads the shadow row, and only alone there,
// and with the main row empty, writes its main cell. Two local changes,
// invisible in the store, keep this true under pauses and store errors: a
// round older than the lease window gives up before writing main, and a
// round retried after a store error uses a fresh owner id. Legacy processes
// running other code lack both, and can overlap a holder after a pause
// longer than the TTL.
//
// Fairness and progress. None beyond deadlock freedom: a releasing process
// that asks again tends to win while others sleep, and one waiter's wait is
// unbounded. This is the reason for the migration.
//
// Leases and Lost. A holder rewrites its main cell every Options.Renew; when
// no write sent within (TTL − 1s − MaxServerSkew)/2 on the monotonic clock
// succeeded, Lost() closes, before any replica can count the cell expired.
// Stop work then; Unlock reports lockstep.ErrLost.
//
// Fencing. With Options.Fencing, each acquisition carries a token, ordered
// with every other mode's if the fleet draws from one global time table. It
// lives in that table, not in the legacy rows; legacy binaries draw none.
//
// # Pitfalls and failures
//
// MainTable, ShadowTable and TTL must match the legacy fleet's, and every
// process's ProcessID must be unique. Every lock is exclusive, whatever
// access it asks. Store errors end a round (its cells deleted) and Lock
// retries; TryLock returns them. With fencing, a failed draw or a token that
// arrived after the lease lapsed ends the round the same way (TryLock's
// error then wraps lockstep.ErrLost for a lapse). When ctx ends first, the
// error satisfies errors.Is(err, ctx.Err()) and the cells are deleted. A
// failed Unlock is retried by the next Unlock or Close; otherwise the cell
// expires after the TTL.
//
// The algorithm and its proofs are in docs/algorithms.md, section 3 (3.2
// steps, 3.3 exclusion and the round deadline, 3.4 unfairness); section 6
// covers its use by package combined.
package shadowlock
