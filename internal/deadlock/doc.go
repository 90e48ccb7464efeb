// Package deadlock is the lock manager's deadlock detector (the
// deadlock-detection module of seed 003, §3.2 and Appendix A): waiters that have waited long publish
// wait records in the store, and the victim of a cycle among them fails
// itself with lockstep.ErrDeadlock. internal/manager calls it (Detector.Begin
// starts a wait and returns the ctx the Locker's take runs under, which the
// detector cancels when the wait is a cycle's victim; Wait.Finish ends it):
// it never calls the take, and depends on
// the root package and a lockstep.Store, never on a Locker. The full
// argument is docs/algorithms.md, section 8.5; this is its summary.
//
// # Records
//
// A wait (one blocking call's wait for one member) that has lasted After
// publishes a Record, one TTL'd cell of the lock_waits table in one
// partition, renewed every Every: what the identity (the reentrancy holder,
// or the call) waits for, what it holds, the caller's comment, the process
// and the wait's start. Accesses are those the Locker really takes: a
// legacy or combined take of a Shared request waits and holds in
// Exclusive (Wait.Takes, from manager.Step.Take), which only adds true
// edges. Two rules make a record true while it is visible:
//
//   - R1, delete first: a wait's record is deleted, with a timestamp above
//     its writes, before any holding it lists is released and before the
//     call returns (Wait.Finish; a failed delete is retried until the record has
//     surely expired).
//   - R2, a name is never reused: a record whose holdings shrink is deleted
//     and published again under a new name (Wait.Retract).
//
// # Detection and the victim
//
// Each round reads the partition and builds the graph R → S when S holds
// the id R waits for in an incompatible access (Graph). A record's rank is
// (start, name); a cycle's victim is its highest-ranked member, which every
// process computes alike. A waiter looks only for cycles through itself
// among records ranked below it (VictimCycle), and fails only if a second
// read, sent after the first one's reply, shows such a cycle again with
// names the first read returned. Then (Lemma 11 and Theorem 12) the cycle
// existed at the instant the first read replied, unless a member's lease
// had lapsed; and every cycle of hold edges that lasts longer than After +
// Every + four store round trips is broken (Theorem 13).
//
// # Limits
//
// The graph has hold edges only: a cycle that needs a FIFO edge (a request
// queued behind an earlier incompatible waiter of the same id, possible only
// with compatible accesses on that id) is not broken. Processes that
// publish nothing (Lockers without detection, older releases) are not nodes:
// a cycle through one is not broken, and none can cause a false report.
package deadlock
