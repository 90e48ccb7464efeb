// Package queuelock is lockstep's fair lock on Cassandra: each lock id has a
// first-come, first-served line of waiters, and a waiter claims the lock when
// nothing it conflicts with is ahead of it or holds it.
//
// Use it directly when every process that takes these locks uses this
// package (mode new); while a fleet still runs the legacy shadow-table lock,
// use package migration, since the two algorithms do not see each other's
// cells. It needs only a lockstep.Store: Cassandra (package cassandra) or the
// embedded model (package model).
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
// LockGroup takes several ids at once in any lockstep.Access, and
// Options.Separator makes ids hierarchical.
//
// # Guarantees
//
//   - Mutual exclusion: incompatible acquisitions of one id are never both
//     valid holders, given QUORUM reads and writes and Cassandra node clocks
//     within Options.MaxServerSkew; process clocks do not matter.
//   - Fairness: a waiter keeps its place, and each other Locker overtakes it
//     at most twice while process clocks are within Options.MaxClockSkew.
//   - Progress: while requests succeed, every waiter acquires.
//   - Leases: a lock's Lost() closes before any replica can count its cells
//     expired; check it before each step of the protected work.
//   - Scope: the store's (lockstep.ScopeOf), global or per data centre.
//   - Fencing (Options.Fencing): tokens larger than every earlier
//     incompatible owner's, for resources that refuse smaller ones; with
//     Options.Evidence drawn beside the claim, at no added sequential
//     request, or taken from values the last such draw reserved ahead,
//     with no request to the global cell.
//   - Shared identities: Locker is a lockstep.Sharer; Adopt continues a
//     shared lock under the same owner and token, and the last holder to
//     Unlock releases.
//
// # Configuration pitfalls
//
//   - ProcessID must be unique across the fleet, and every process locking
//     the same ids must use the same Table and Separator.
//   - MaxServerSkew must truly bound the servers' clock difference (NTP).
//   - Wake-ups need a UDP port per process that the fleet can reach and one
//     shared key; when they stop arriving a Locker polls as without them
//     and tells its Logger and a lockstep.WakeObserver.
//   - Switch Handoff on only once every process runs a version that reads
//     handed cells, all with one TTL. With Handoff a wake-up can grant a
//     lock, so the wake-up key must then be kept as the store's
//     credentials are: a process holding it could forge a grant.
//   - Evidence is taken in two steps across the fleet: every Locker that
//     takes fenced locks of the table at EvidenceRecord first (migration
//     Lockers by Options.Queue.Evidence, combined ones by their
//     Options.Queue.Evidence at EvidenceRecord), then EvidenceUse. A
//     Locker at EvidenceUse beside one that records nothing (EvidenceOff,
//     or an older version) may keep a token below an earlier holder's.
//     An older version than 0.1.0 fails on the evidence cell with
//     lockstep.ErrForeignCell.
//   - Every Locker of a table, in every process, needs the same TTL:
//     exclusion's proof compares one's cell life with another's lease
//     window (docs/algorithms.md, A7).
//   - Switch IntentionRange on only once every process locking the table
//     reads the range (0.1.0 or later; an older one fails with
//     lockstep.ErrForeignCell, never overlapping). Lockers with and
//     without it mix safely.
//
// # Failures a caller must handle
//
// Lock retries store errors until ctx ends, then deletes its cells and
// returns an error wrapping ctx.Err(); TryLock returns them. A cell no
// Locker writes in the lock's partition fails with lockstep.ErrForeignCell.
// A failed Unlock is retried by the next Unlock or Close, or the cells
// expire after the TTL. After Close, calls fail with lockstep.ErrClosed.
//
// docs/algorithms.md has the algorithm and its proofs (sections 1, 2, 4, 5
// and 8); docs/getting-started.md ("Leases, TTLs and clocks") says how to
// choose the TTL, renewal and skew bounds.
package queuelock
