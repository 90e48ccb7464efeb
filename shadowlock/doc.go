// Package shadowlock is the legacy lock algorithm of seed 000 §4 (listings 4
// and 5), kept exactly as the fleet being migrated runs it: combined-mode
// processes (package combined) read and write the same rows, so both its
// behaviour and its storage format are frozen.
//
// # Frozen storage format
//
// Two tables of the generic cell shape (partition = row key, clustering =
// column name, value), default names legacy_main and legacy_shadow:
//
//	legacy_main   row = lock id   column = owner id   value = empty
//	              the owner of the lock; one live cell while held
//	legacy_shadow row = lock id   column = owner id   value = empty
//	              contenders announce themselves here before claiming
//
// Every cell carries the lease TTL; the holder rewrites its main cell every
// Renew. Owner ids are unique per acquisition. Changing any of this breaks
// mutual exclusion with processes still running the legacy code. The cells
// are built and read through package internal/layout, the one owner of the
// format. A legacy row has no foreign cells: any cell there is some owner's
// (a legacy peer chooses its own owner ids), and blocks others until it is
// deleted or expires, as listing 4 has it.
//
// # Algorithm (listing 4, TryLock)
//
//  1. Read the main row. If it holds exactly one cell: Success if it is ours,
//     else AnotherThreadIsOwner.
//  2. Write our cell to the shadow row; read the shadow row.
//  3. If ours is the only shadow cell and the main row (re-read) is empty:
//     write our cell to main, delete our shadow cell: Success.
//  4. Otherwise delete our shadow cell: ConcurrentAttempt.
//
// Lock (listing 5) repeats TryLock, sleeping uniformly in [0, 1000 ms] after
// AnotherThreadIsOwner and in [0, 50·attempt ms] after ConcurrentAttempt
// (attempt counting those). The package's TryLock fails at once on
// AnotherThreadIsOwner but retries a ConcurrentAttempt the same way, up to
// lockstep.MaxTryAttempts rounds, as the production legacy code's TryGetLock
// does: a concurrent attempt means nobody holds the lock, and reporting it
// as ErrLocked would let callers retrying in step livelock.
//
// # Safety and its limits
//
// Two contenders that both reach step 3 both wrote a shadow cell and then
// read the shadow row; by lemma 1 at least one saw the other's cell, so at
// most one proceeds. A contender that proceeds re-reads main after its shadow
// read; a holder's main cell written before that read is seen. The algorithm
// makes no promise of fairness: a releasing process that immediately retries
// tends to win again while others sleep, which is why the seed measured
// worst-case waits of 502 s with five processes. That unfairness is the reason
// for the migration and is deliberately left as it is.
//
// The argument needs every cell a round relies on to stay live until the
// round ends. Listing 4 has no clock in it, so a round stalled for a TTL (a
// pause, a slow read) can find its shadow cell expired under it while a
// contender saw itself alone: two holders. The model checks found this, and a
// retry after a store error under the same owner id (which could take its own
// half-deleted main cell for a held lock). This implementation differs from
// the listing in two local ways, invisible in the store and to legacy peers:
// a round older than the lease window (internal/lease: (TTL − 1s −
// MaxServerSkew)/2, on elapsed time) since its shadow write was sent gives up as a
// concurrent attempt before writing main, and every retried round uses a
// fresh owner id. Legacy processes running other code keep the listing's
// weakness; the shorter the TTL against their pauses, the more it matters.
//
// For package combined, a prepared acquisition (overlap.go, through
// internal/held's Source.Prepare) runs these rounds beside a queue claim:
// each round waits before its main write until the caller holds the queue
// lock, the first round leaves step 1 out (step 10's read classifies it),
// and the acquisition returns while step 12 is in flight (Release waits for
// it). Steps 7, 8, 10, 11 and 12 keep their order, each sent after the
// previous one's reply; package combined's doc has the argument.
//
// # Fencing tokens
//
// With Options.Fencing set, an acquisition draws a token from the global
// time service after its round succeeded, and keeps it only if the lease,
// counted from the send of its main write, was still open when the token
// arrived; otherwise, and when the draw fails, the round is undone (its main
// cell deleted) and treated like a round that met a store error: Lock
// retries it under a fresh owner id, TryLock returns the error (wrapping
// lockstep.ErrLost for a lapse). internal/fencing has the argument that
// tokens so drawn strictly increase across successive owners. The token
// lives in the global time table, not in the legacy rows, so the frozen
// format is unchanged; legacy binaries not built on this library draw no
// token, and a fenced resource shared with them is only protected against
// holders that draw one. Without fencing, Token returns 0.
//
// This package depends only on the root package, clock and internal
// packages; never on a driver.
package shadowlock
