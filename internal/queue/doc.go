// Package queue is the queue lock's core: the fair, shared-or-exclusive
// lock that package queuelock offers to users, and the interface its
// composers call directly.
//
// A [Locker] holds everything of the algorithm: Options resolved and
// validated (options.go), the attempt that joins the queue and claims the
// lock (acquire.go, claim.go: one rule decides that a claim won, for every
// claim path; view.go: what a read returns, split at the intention range
// for an intention claim with Options.IntentionRange), the uncontended fast path (fastpath.go), reads paced by
// position (pace.go), what a Locker keeps per id (idstate.go, floor.go),
// wake-ups and the handoff (wake.go, wakehealth.go, handoff.go), shared
// identities (share.go, adopt.go, sharetoken.go), the part a held lock
// keeps (part.go, held.go), and the lock manager shell (groups, hierarchy,
// reentrancy, Close). Package queuelock is a thin front over it: its
// Locker's methods are one-line calls to this one.
//
// Composers (package combined and package migration) build a Locker here
// with the owner-id issuer of their process passed explicitly (NewWith),
// or receive the one inside a queuelock.Locker, and call Acquire (with
// held.Request.Claims, on which each claim is noted for package combined),
// CheckShareToken, Owners, Clock, Process and Observer.
//
// The algorithm's steps and its safety, fairness and progress arguments
// are in docs/algorithms.md, section 4 (4.3 steps, 4.4 mutual exclusion,
// 4.5 bounded bypass, 4.6 progress, 4.12 the handoff, 4.13 why a holder
// gives its queue cell up with its first renewal, 4.14 the intention range
// and the exclusion argument with it, Theorem 3a); section 8 covers the lock
// manager. Planted defects enter through TestingKnobs only.
package queue
