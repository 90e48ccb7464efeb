// Package combined is the bridge mode of a migration: it takes the queue lock
// (package queuelock) and then the legacy shadow-table lock (package
// shadowlock) on the same id, holds and renews both, and releases both.
//
// A combined holder excludes new-mode processes through its queue half and
// legacy processes through its legacy half, so a fleet may run {legacy,
// combined} or {combined, new} safely; legacy and new together are unsafe
// because they touch disjoint rows. Services normally get this mode through
// package migration, which chooses the mode per acquisition and guards the
// phase. Use this package directly only to build that kind of layer yourself.
//
// # Use
//
// New builds a queue Locker and a legacy Locker on one store and owns them.
// Compose takes the two Lockers of one process (same ProcessID and Clock)
// without owning them, so the process keeps one contender per id in the
// queue whether an acquisition is new or combined; close them after the
// combined Locker. Set Separator and Fencing on the combined Options, never
// on the halves'.
//
// # Guarantees
//
// Mutual exclusion against legacy, combined and new holders, as above.
// Deadlock freedom: a combined process writes its legacy main cell only while
// it holds the queue lock, and legacy and new processes take one lock each,
// so no cycle of waits exists; groups take each member queue half first, in
// canonical order. Fairness: only the head of the queue contends on the
// legacy tables, so among combined and new processes the queue's fairness
// holds; against legacy processes only deadlock freedom is promised. Both
// halves are exclusive whatever access is asked: readers of one id, and locks
// below one ancestor, take turns until mode new.
//
// Leases and Lost. Each half has its own lease; the lock's one Lost() closes
// when either lapses, and checks both deadlines when looked at. The legacy
// half's TTL is the legacy fleet's, the queue half's that of every process
// taking queue locks of the table: one TTL per table (docs/algorithms.md,
// A7). The halves
// can fail apart (the legacy tables in an unreachable keyspace, say): a
// holder must stop when Lost() closes even while the other half renews.
//
// Fencing. With Options.Fencing, one token is drawn once both halves are
// held, kept only if both leases were still open when it arrived.
//
// # Failures
//
// When ctx ends, what was taken is released and the error satisfies
// errors.Is(err, ctx.Err()). If the queue half is lost while the legacy lock
// is awaited, Lock gives both up and starts again from the queue (TryLock
// returns an error wrapping lockstep.ErrLost); so it does, with fencing, when
// the draw fails or the token arrives after a lease lapsed. A failed Unlock retries only the half whose
// delete failed, at the next Unlock or Close.
//
// The arguments are in docs/algorithms.md, section 6 (6.1 steps and the
// overlapped requests, 6.2 Theorem 7, 6.3 Theorem 8 and fairness).
package combined
