// Package election is leader election on top of a fenced lockstep lock:
// candidates Campaign for one lock id, the one holding it leads, and its
// fencing token is its term.
//
// It sits above the algorithms: it takes any lockstep.Locker whose locks are
// lockstep.Fenced (queuelock with Options.Fencing; migration or combined with
// fencing) and a lockstep.Store for the leader record, and calls them; no
// algorithm knows of it.
//
// # Use
//
//	e, err := election.New(locker, store, "scheduler", nil)
//	...
//	ld, err := e.Campaign(ctx, "10.0.0.7:8080") // blocks until this process leads
//	...
//	defer ld.Resign(context.WithoutCancel(ctx))
//	for work := range jobs {
//		select {
//		case <-ld.Done():
//			return // no longer leader: stop at once
//		default:
//		}
//		do(work, ld.Term()) // pass the term to fenced resources (package fence)
//	}
//
// Anyone, candidate or not, asks who leads with Leader, or follows changes
// with Observe.
//
// # Guarantees
//
// Terms. A leader's term is its lock's fencing token, so terms strictly
// increase across successive leaders (lockstep.Fenced), and a resource that
// refuses smaller terms (package fence) is safe even from a deposed leader
// that has not noticed yet.
//
// The deposed leader learns first. Done is the lock's Lost signal: it closes
// when no renewal of the lock's cells succeeded within the lease window,
// which ends before any replica can count those cells expired, and so before
// another candidate's claim can succeed. Done checks the deadline itself on
// every call. So two leaders never both see Done open at one instant: the
// tenure of a leader, from Campaign's return to Done closing or Resign, never
// overlaps another's. This is docs/algorithms.md, section 4.4, Corollary 1
// ("Lost() before takeover": once a successor's claim has won, every look
// at the predecessor's Lost finds it closed), which rests on the lease
// (section 2, Theorem 1) and the claim's check (Theorem 3). The model check
// in this package (property_test.go) tests it, and that terms increase,
// under crashes, pauses, clock skew and lost messages, with a planted
// control (property_bugs_test.go) that it must catch.
//
// Fairness. Campaign is the Locker's Lock: with the queue lock, candidates
// lead in the order they began to campaign (docs/algorithms.md, section 4.5).
// With the legacy lock there is no order.
//
// # The leader record
//
// The lock's cells say who holds the lock, not what the holder wants the
// others to know, and the lock algorithms are left as they are. So the
// winner writes a record of its own: one cell holding a format byte and the
// candidate's value (an address, say), written with the term as its write timestamp and with
// Options.TTL, and rewritten every Options.Refresh while the leader's lease
// holds. Because the store keeps the write with the highest timestamp, a
// deposed leader's late rewrite can never replace its successor's record,
// and Resign's delete (a tombstone at the term) removes only its own.
// Leader reads the record; Observe polls it every Options.Poll and never
// reports a term lower than one it reported before.
//
// The record is a hint for finding the leader, not a proof of leadership:
// after a leader crashes, Leader reports it until its record expires (at
// most Options.TTL) or its successor writes its own; and between a winner's
// lock and its first record write, Leader still names the previous leader.
// Use the term to protect what the leader writes.
//
// The record lives by default in the queue lock's table, in a partition
// named by the election's id and a NUL byte: no lock id can contain NUL
// (lockstep.ValidateID), so no lock ever reads it, and no schema change is
// needed. Options.Table moves it to a table of its own, created as the
// queue lock's is (schema/cql/queue_lock.cql, same columns).
//
// # Failures
//
// Campaign returns the Locker's error when ctx ends or the store refuses;
// if the record cannot be written before ctx ends or the lease is lost, it
// releases the lock and returns the error. A failed Resign leaves the lock
// releasable: call it again, or let the cells expire after their TTL.
//
// This package is safe for concurrent use; see each type.
package election
