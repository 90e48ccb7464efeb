// Package semaphore is a distributed counting semaphore: at most N holders
// of one id at once, across every process of a fleet.
//
// It sits above the algorithms and adds nothing to them: a Semaphore of
// size N over id is N ordinary exclusive locks, the slots "id/0" …
// "id/N-1", taken through any lockstep.Locker. A holder holds exactly one
// slot, so at most N hold at once: that is the lock's mutual exclusion, N
// times, with no new argument. (With a Locker whose Separator is "/", each
// slot also takes an intention lock on id, which the slots share.)
//
// # Acquire
//
// Acquire first tries every slot without waiting (TryLock), in a rotated
// order that differs from one call to the next, so that concurrent callers
// spread over the slots instead of all trying "id/0" first. If every slot
// is busy it waits in one slot's line for at most Options.Wait, then tries
// every slot again, waiting next in the following slot's line, and so on
// until it holds a slot or ctx ends.
//
// Following golang.org/x/sync/semaphore's contract where it applies: when
// ctx ends first, Acquire returns an error for which errors.Is(err,
// ctx.Err()) holds and leaves the semaphore unchanged (no slot held, no
// cell left behind beyond what expires after its TTL if the cleanup
// fails); if a slot was won at the same moment ctx ended, Acquire returns
// the Permit. Unlike x/sync, a holder takes one unit, never a weight, and
// Release belongs to the Permit Acquire returned.
//
// # Fairness: what it gives and what it does not
//
// Inside one slot's line, waiters are served first come, first served (the
// queue lock's fairness, docs/algorithms.md, section 4.5). Across slots
// there is no order: a waiter in one slot's line can be passed by a caller
// that arrives later and finds another slot free, and a waiter that leaves
// a line after Options.Wait loses its place there. So the semaphore is
// deadlock-free (whenever a slot is free and stays free, some caller takes
// it) but not starvation-free: under unbroken contention one caller can in
// principle wait for ever. A longer Options.Wait keeps waiters in line
// longer, which favours them over newcomers; a shorter one finds slots
// that free up elsewhere sooner.
//
// # Cost
//
// An Acquire that finds a free slot costs what TryLock costs, times the
// busy slots it tried first. An Acquire that waits costs N TryLocks per
// Options.Wait on top of one waiter's polling.
//
// A Semaphore and its Permits are safe for concurrent use.
package semaphore
