// Package combined is the rollout mode of seed 000 §7.2: take the new (queue)
// lock, then the legacy (shadow-table) lock with the legacy protocol, hold
// both, renew both, and release both.
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
// Every combined process takes the two locks in the same order, queue first:
// its legacy requests may travel beside the queue's (below), but it writes
// its legacy main cell only once it holds the queue lock.
// Legacy processes take only the legacy lock and new ones only the queue
// lock, so no cycle of waits exists. Only the head of the queue ever contends
// on the legacy tables, so combined processes do not add to the legacy
// algorithm's unfairness among themselves: a waiter whose queue lock is lost
// while it waits for the legacy lock stops contending there and starts again
// from the queue.
//
// # Accesses, groups and hierarchical ids
//
// A combined acquisition takes both halves exclusively, whatever access it
// is asked for (lockstep.Access: S, or an intention lock IS, IX, SIX on an
// ancestor of a hierarchical id). The legacy half must be exclusive: the
// legacy format has nothing else, and legacy processes know only exclusive
// locks of exact ids. The queue half is exclusive too, so that the argument
// above ("only the head of the queue ever contends on the legacy tables")
// stays true: with the queue half in a shared access, every compatible
// holder of the queue lock — readers, or intention locks on one ancestor —
// contended on the legacy half at once, and the legacy lock is not FIFO.
// The model checks found that (fleet combined+new/manager: a combined
// process re-taking a/b in S, so the legacy half of "a" every 2 s, kept
// another's a:S waiting beyond the bound). Nothing of what the legacy half
// allows is lost by it — two combined holders of one id never coexisted —
// and it is safe against new-mode processes, whose accesses an exclusive
// queue lock excludes. The price: in phase combined, readers of one id and
// locks below one ancestor take turns; sharing and sibling concurrency
// arrive with phase new. Groups are taken member after member in canonical
// order (internal/manager), each member queue half first; a process then
// waits only for an (id, half) above every one it holds, so the deadlock
// argument above extends to groups.
//
// # Overlapped requests (issue 17, item 3)
//
// Taking the halves strictly one after the other cost 10 sequential
// requests uncontended (queue: claim write, read; legacy, listing 4: read
// main, write shadow, read shadow, read main, write main, delete shadow;
// release: delete legacy, then queue). The halves' requests now travel side
// by side where no argument orders them, 6 sequential round trips in all:
//
//	1  queue claim write (queue + owner cell)  ‖  legacy shadow write (step 7)
//	2  queue claim read                        ‖  legacy shadow read (step 8)
//	3                                             legacy main read (step 10)
//	   — the legacy half waits here until the queue half is held —
//	4                                             legacy main write (step 11)
//	5                                             legacy shadow delete (step 12), in flight while the lock is used
//	6  queue delete                            ‖  legacy main delete (release)
//
// The legacy half is a prepared acquisition of package shadowlock
// (overlap.go there), started as each queue claim's write is sent
// (held.Request.Claiming); a claim that loses aborts it, its shadow cell
// deleted, before the next claim starts another. Which pairs may overlap,
// and why:
//
//   - Any queue request beside any legacy request. The two halves touch
//     disjoint tables, and no argument relates them: a combined holder
//     excludes new processes by the queue half alone (package queuelock's
//     lemma 1 on the owner cells) and legacy processes by the legacy half
//     alone (package shadowlock's argument on the shadow and main rows), and
//     two combined holders would both hold either half. Order between the
//     halves matters only for deadlock freedom and fairness, which ask for
//     one thing: a combined process holds the legacy lock only while it
//     holds the queue lock. So every legacy round waits before its main
//     write (step 11), the one request that takes the legacy lock, until the
//     queue half is held — and gives up, deleting its shadow cell, when the
//     claim beside it lost. A shadow cell written beside a claim that then
//     loses costs a legacy contender at most a ConcurrentAttempt, a thing
//     any legacy contender may cause; only a process whose claim is being
//     sent (the head of the queue, or an uncontended arrival on the fast
//     path) writes one.
//   - Not the legacy round's own steps: 7 → 8 → 10 → 11 → 12 stay in
//     listing 4's order, each sent after the previous one's reply. Lemma 1
//     needs our shadow write complete before our shadow read (7 → 8). The
//     main read must follow the shadow read (8 → 10): a holder deletes its
//     shadow cell only after its main write completed, so a contender that no
//     longer sees that shadow cell sees the main cell — if, and only if, its
//     main read was sent after its shadow read returned. Sent together, the
//     main read can be served first, before the holder's main write, and
//     the shadow read after the holder's shadow delete: two holders. The
//     planted defect CombinedOverlapUnsafe does exactly that, and the model
//     checks' mixed fleet catches it by mutual exclusion
//     (propertytests, negative control CombinedOverlapUnsafe). The main
//     write follows the main read (10 → 11, it decides on it), and the
//     shadow delete follows the main write's reply (11 → 12, by the same
//     argument as 8 → 10, seen from the other side).
//   - Step 12 beside the caller's work: the acquisition returns once the
//     main write succeeded and the shadow delete was sent. A later delete only
//     makes contenders see our shadow cell longer, so they give up
//     (ConcurrentAttempt), which is always safe. Unlock waits for it and
//     reports and retries it if it failed; unretried, the cell expires.
//   - Listing 4's step 1 (read main first) is left out of the first round:
//     it only sends home early a round that finds the lock held, and does
//     not enter the safety argument; step 10's read, exactly one other
//     owner's cell, classifies the round as AnotherThreadIsOwner for the
//     same backoff. Rounds after the gate opened keep it, so a combined
//     process waiting for a legacy holder reads main without writing.
//   - The two releases side by side (held.Spec.ParallelRelease). Releasing
//     ends the hold whatever the order in which the deletes land; the old
//     order (legacy first) only kept the next combined head from meeting our
//     legacy cell, and a head that meets it now backs off as for any legacy
//     holder, while a combined head next in line meets it only if its claim
//     overtakes our legacy delete.
//
// The storage format is untouched: the same cells, written by the same
// requests, each with the TTL as before. What changes is only when a
// combined process sends them, which legacy peers cannot tell from a
// process that is merely fast or slow. The model checks' combined fleets
// (legacy+combined, combined+new and their switching variants) run the
// overlapped protocol; the simulator grants concurrent requests of one
// process in whichever order its schedule picks, so both orders of every
// overlapped pair are explored — the negative control above is caught only
// because the main read can be granted before the shadow read.
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
// a goroutine. The halves can fail apart: the legacy tables may live in a
// keyspace of their own, unreachable from a process that still reaches the
// queue's, or a grant on them may be revoked. The model checks cut a
// process off the legacy tables alone (propertytests, cut_test.go), and a
// holder whose legacy lease lapsed while its queue lease renews must stop
// working; the planted defect LegacyLossUnwatched, a loss signal without
// the legacy lease, is caught there by the lease property.
//
// Unlock stops both renewals, then deletes the legacy cell and the queue
// cells side by side (see above); a part whose delete failed is retried by
// the next Unlock or by Close, the other is not. One AcquireEvent and one
// ReleaseEvent, with mode combined, report it.
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
