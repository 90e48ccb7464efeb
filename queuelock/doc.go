// Package queuelock is lockstep's fair lock on Cassandra: each lock id has a
// first-come, first-served line of waiters, and a waiter claims the lock when
// nothing it conflicts with is ahead of it or holds it.
//
// Use it directly when every process that takes these locks uses this
// package (mode new). While a fleet still runs the legacy shadow-table lock,
// use package migration: the two algorithms do not see each other's cells.
// The package needs only a lockstep.Store, so it runs on Cassandra (package
// cassandra) and on the embedded model (package model) alike.
//
// # Use
//
// Build one Locker per process with New (nil options mean defaults), call
// Ready once at startup, and Close it on shutdown. Lock waits in line until
// the lock is held or ctx ends; TryLock fails with lockstep.ErrLocked,
// writing nothing, when a conflicting holder or waiter is there:
//
//	l, err := lk.Lock(ctx, "invoice/42")
//	if err != nil {
//		return err
//	}
//	defer l.Unlock(context.WithoutCancel(ctx))
//
// LockGroup takes several ids at once, in any lockstep.Access, and
// Options.Separator makes ids hierarchical (see the root package's
// examples).
//
// # Guarantees
//
// Mutual exclusion. Two acquisitions of one id in incompatible accesses are
// never both valid holders. A claim holds only if a read sent after its own
// owner-cell write completed shows no incompatible owner cell, so exclusion
// rests on QUORUM reads and writes and a bound on the Cassandra nodes' clock
// skew (Options.MaxServerSkew), not on the processes' clocks or on the
// queue's order.
//
// Fairness. A waiter keeps its place however long it waits, and while
// requests succeed each other Locker overtakes it at most twice. This
// assumes the processes' clocks are within
// Options.MaxClockSkew of each other; a larger skew costs fairness only,
// never exclusion.
//
// Progress. When requests succeed and every holder eventually releases or
// crashes (its cells expire after about the TTL), every waiter acquires.
//
// Leases and Lost. A held lock renews its cells every Options.Renew. If no
// renewal sent within the lease window, (TTL − 1s − MaxServerSkew)/2 on the
// monotonic clock, succeeded, the lock's Lost() channel closes — before any
// replica can count its cells expired, whatever the wall clocks do. A holder
// must check Lost() before each step of the work the lock protects, and stop
// once it is closed; Unlock then reports lockstep.ErrLost.
//
// Scope. The locks have the store's scope (lockstep.ScopeOf): global, or,
// on a DC-local store (cassandra.WithLocalDC), one holder per data centre,
// each data centre's lock of an id in a row of its own
// (lockstep.Scope.Row), so it never meets the global lock of that id.
//
// Fencing. With Options.Fencing, each acquisition carries a token
// (lockstep.Fenced) larger than every earlier incompatible owner's, in any
// mode, if the whole fleet draws from one global time table. A resource that
// refuses smaller tokens (package fence) is safe even from a paused holder.
//
// Shared identities. Locker is a lockstep.Sharer: Share gives a token for
// a held lock, and Adopt on another process's Locker continues it under the
// same owner and fencing token, without a gap in its renewals; the last
// holder to Unlock releases (docs/algorithms.md, section 8.7).
//
// # Configuration pitfalls
//
//   - ProcessID must be unique across the fleet; two Lockers sharing one can
//     both believe they hold a lock.
//   - TTL is whole seconds and at least 4s with the default MaxServerSkew of
//     1s; MaxServerSkew must truly bound the servers' clock difference (keep
//     them on NTP).
//   - Every process locking the same ids must use the same Table and the same
//     Separator.
//   - Wake-ups (Options.Wake) need a UDP port per process, reachable by the
//     fleet at the address it publishes, and one key shared by the fleet.
//     Lost wake-ups cost about what having none costs: a Locker relies on
//     them only while they arrive, and tells its Logger and a
//     lockstep.WakeObserver when they stop.
//   - Handoff (Options.Handoff, off by default) must be switched on only
//     once every process runs a version that reads handed cells, and all
//     use one TTL; an older process that is named waits a TTL (never
//     unsafe).
//   - An id idle for longer than 2×TTL + Poll loses its published read floor,
//     so its next read steps over the tombstones compaction has not purged yet.
//
// # Failures a caller must handle
//
// Store errors while Lock waits are logged and retried until ctx ends; when
// ctx ends, Lock deletes its cells and returns an error for which
// errors.Is(err, ctx.Err()) holds. TryLock returns store errors. A cell in the
// lock's partition that no Locker writes fails the acquisition with a
// *lockstep.ForeignCellError (lockstep.ErrForeignCell): another writer shares
// the table. With fencing, TryLock fails if the token draw fails (the store's
// error) or arrives after the lease lapsed (lockstep.ErrLost); Lock claims
// again. A failed Unlock is retried by the next Unlock or by Close; otherwise
// the cells expire after the TTL. After Close, calls fail with
// lockstep.ErrClosed.
//
// # The argument
//
// docs/algorithms.md has the algorithm and its proofs: sections 1 (storage
// model), 2 (leases), 4 (the queue lock, its wake-ups and handoff), 5
// (fencing) and 8 (accesses, hierarchy, groups, shared identities).
package queuelock
