// Package shadow is the legacy lock's core: the frozen two-table algorithm
// that package shadowlock offers to users, and the interface its composers
// call directly.
//
// A [Locker] holds everything of the algorithm: Options resolved and
// validated, the rounds of the legacy algorithm (trylock.go: shadow write,
// main read, main write, shadow re-read), the backoff between rounds, the
// part a held lock keeps (part.go: its cells and lease), the prepared
// acquisition package combined runs beside its queue half's claims
// (overlap.go), and the lock manager shell (groups, hierarchy, reentrancy,
// Close). Package shadowlock is a thin front over it: its Locker's methods
// are one-line calls to this one.
//
// Composers (package combined and package migration) build a Locker here
// with the owner-id issuer of their process passed explicitly (NewWith),
// or receive the one inside a shadowlock.Locker, and call Acquire, Prepare
// and Process.
//
// The algorithm's steps and its safety argument are in docs/algorithms.md,
// section 3 ("The legacy shadow-table lock"); its overlap with the queue half in
// section 6.1. Planted defects enter through TestingKnobs only.
package shadow
