// Package combined is the rollout mode of seed 000 §7.2: take the new (queue)
// lock, then the legacy (shadow-table) lock with the legacy protocol, hold
// both, renew both, and release in reverse order.
//
// # Why it is safe beside both other modes
//
// A combined holder holds the queue lock, so it excludes new-mode processes
// (package queuelock's argument), and it holds the legacy lock in the frozen
// legacy format, so it excludes legacy processes (package shadowlock's
// argument). A fleet whose live modes lie within {legacy, combined} or within
// {combined, new} therefore keeps mutual exclusion; legacy and new together do
// not, since they touch disjoint rows (package migration guards against it).
//
// # Why it cannot deadlock
//
// Every combined process takes the two locks in the same order, queue first.
// Legacy processes take only the legacy lock and new ones only the queue
// lock, so no cycle of waits exists. Only the head of the queue ever contends
// on the legacy tables, so combined processes do not add to the legacy
// algorithm's unfairness among themselves: a waiter whose queue lock is lost
// while it waits for the legacy lock stops contending there and starts again
// from the queue.
//
// # Fencing tokens
//
// With Options.Fencing set, a combined acquisition draws one token (not one
// per half) once both halves are held, and keeps it only if both leases were
// still open when it arrived. Otherwise, and when the draw fails, it gives
// both halves up: Lock starts again from the queue (after a short pause for
// a failed draw), TryLock returns the error (wrapping lockstep.ErrLost for a
// lapse). internal/fencing has the argument; it holds across modes because
// a combined holder's cells exclude legacy and new holders alike. The halves
// draw no token of their own, so their Options' Fencing must be unset.
//
// # One acquisition, one value
//
// A combined lock is one value (internal/held) holding two parts, the queue
// part and the legacy part, each with its own lease, and one loss signal:
// either lease declaring itself lost fires it, and Lost() checks both
// deadlines itself whenever it is looked at, so nothing merges the two with
// a goroutine. Unlock stops both renewals, then deletes the legacy cell and
// the queue cells (reverse order of acquisition); a part whose delete failed
// is retried by the next Unlock or by Close, the other is not. One
// AcquireEvent and one ReleaseEvent, with mode combined, report it.
//
// # Composition
//
// Compose takes the halves from a queuelock.Locker and a shadowlock.Locker
// of the same process, which it does not own; package migration shares its
// one queue Locker between modes new and combined that way, so the
// in-process queue of package queuelock covers both. New builds the two
// Lockers itself and owns them.
//
// This package composes queuelock and shadowlock and depends on no driver.
package combined
