package queue

import (
	"github.com/lockstep-go/lockstep/internal/cohort"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// The planted defects, in full (docs/verification.md has the fleet and the
// property that catches each):
//
//   - SkipOwnerReread makes a claim succeed right after writing the owner
//     cell, without reading the owner cells.
//   - ReuseTombstonedTimestamp rewrites an owner cell, after deleting it in a
//     lost claim race, with the tombstone's own timestamp, so the tombstone
//     wins the tie and the write vanishes.
//   - QueueCellsWithoutTTL writes queue cells that never expire, so a crashed
//     waiter blocks the queue for ever.
//   - IgnoreContentionHint takes the fast path even on an id this Locker just
//     saw contended, so an arrival whose Lock calls are cancelled one after
//     another writes an owner cell each time and can keep failing the queue
//     head's claims.
//   - NoFloorLag raises the read floor to the oldest live queue cell seen,
//     with no lag behind the clock: a process whose clock leads, re-locking
//     at once, bypasses a lagging waiter again and again.
//   - IgnorePublishedFloor disregards the published floor cell, so a waiter
//     whose name another process's floor has passed keeps its place where
//     that process never sees it.
//   - WakeGrants takes a wake-up (Options.Wake) for a grant: the woken waiter
//     writes its owner cell and holds, without the claim's read.
//   - WakeOnly makes waiters with wake-ups stop polling: a lost wake-up
//     stalls the line.
//   - ReaderBypass lets a request in any access but Exclusive ignore the
//     line: a stream of readers starves an earlier waiting writer.
//   - StaleOwnerColumn lets a handle inherit its Locker's owner column among
//     the cells a failed cleanup left behind, so a retried Unlock deletes it
//     while a newer acquisition of the same Locker holds the id.
//   - KeepIDState never frees per-id state (read floors, contention hints)
//     and publishes the floor cell without a TTL.
//   - SkipForeignCells logs a cell of the lock's partition that no Locker
//     writes and goes on without it, so an owner cell naming no owner is not
//     counted by the claim's check.
//   - RetryNeedsFreeID makes a retried Unlock delete its owner cell only when
//     no goroutine of the Locker holds or awaits the id: a reader's leftover
//     owner cell then keeps a writer out for a TTL.
//   - ShareStopsGiver makes Share stop the giver's renewals at once, before
//     any receiver has renewed: the lock's cells are renewed by nobody while
//     the giver still believes it holds (and until the receiver's Adopt).
//   - AdoptWithoutWitness makes Adopt write its owner cell without reading
//     first or after, so it adopts a lock whose holders are gone, over a
//     third process that acquired it meanwhile.
//   - HandoffFromRead makes a waiter that confirms a handoff, by its read or
//     by a grant, count its lease from that read's send or that grant's
//     arrival instead of from its queue cell's write the releaser saw: it
//     may work on after the handed cell expired.
//   - GrantWithoutLeaseCheck makes a releaser with Handoff send a grant
//     whatever its lease: one whose lease lapsed while its handoff was in
//     flight grants a lock that a third process may have taken meanwhile.
//   - HandoffNamesLast makes a releaser hand the lock to the last waiter in
//     line its claim saw, not the next one: the waiters in between are
//     bypassed, again and again.
//   - HolderKeepsQueueCell makes a holder renew its queue cell for as long as
//     it holds instead of deleting it with its
//     first renewal: its name pins every reader's floor, and the reads of
//     the id step over every tombstone left behind it while it holds.
//   - HolderKeepsHandedColumn makes a holder that saw a handed cell naming
//     it leave that column alone at its first renewal, though it gives its
//     queue cell up then: a releaser's handoff retried while it
//     holds, after it gave its place in line up, is written live, and
//     outlives its hold if it releases before that cell expires.
//   - AdoptIntoTurnColumn makes an adoption beside this Locker's own
//     contenders for the id write its owner cell in turn slot 0's column,
//     the one an exclusive contender claims in, instead of the adoption
//     column: that contender's claim takes the adopted cell for its own and
//     wins while the adopted lock is held.
//   - HandoffKeepsFastPath leaves the contention hint alone when a
//     releaser hands the lock on: its process's next Lock of the id may
//     claim on the fast path at once, and that claim's withdrawal may cover
//     the releaser's owner cell on a replica the handoff has not reached.
//   - KeepBelowEvidence makes a claim with Options.Evidence EvidenceUse
//     keep the token drawn beside it whatever the evidence its read
//     returned: a draw served before an earlier holder's completed gives a
//     token below that holder's.
//   - RecordNoEvidence makes a Locker with Options.Evidence record none:
//     a release leaves no trace of its token, so a claim drawing beside it
//     keeps a token below the releaser's, as with KeepBelowEvidence.
//   - AheadPastWindow makes a claim keep a token taken from the values drawn
//     ahead (clock.Global.TakeAhead) while its own lease is open, however
//     long ago their draw's read was sent (an admission's bound still
//     holds): an earlier holder whose draw
//     returned after that read and whose cells then expired unreleased
//     leaves no evidence the claim's read must meet, and its token is
//     above the one kept.
//   - SkipIntentionRange makes every claim read as a claim in an intention
//     access does with Options.IntentionRange: up to the intention range,
//     not to the end of the partition, so a claim in S, SIX or X misses the
//     intention holders it conflicts with.

// TestingKnobs plant deliberate defects for this module's negative controls
// (propertytests), through Options.TestingKnobs; the comment above the
// type, in knobs.go, says what each does. Leave them nil: each breaks the
// lock.
type TestingKnobs struct {
	SkipOwnerReread          bool
	ReuseTombstonedTimestamp bool
	QueueCellsWithoutTTL     bool
	IgnoreContentionHint     bool
	NoFloorLag               bool
	IgnorePublishedFloor     bool
	WakeGrants               bool
	WakeOnly                 bool
	ReaderBypass             bool
	StaleOwnerColumn         bool
	KeepIDState              bool
	SkipForeignCells         bool
	RetryNeedsFreeID         bool
	ShareStopsGiver          bool
	AdoptWithoutWitness      bool
	HandoffFromRead          bool
	HandoffNamesLast         bool
	GrantWithoutLeaseCheck   bool
	HolderKeepsQueueCell     bool
	HolderKeepsHandedColumn  bool
	SkipIntentionRange       bool
	AdoptIntoTurnColumn      bool
	KeepBelowEvidence        bool
	HandoffKeepsFastPath     bool
	RecordNoEvidence         bool
	AheadPastWindow          bool

	// Defects of the shared lease, lock-manager, fencing and local-handoff
	// code.
	Lease   *lease.TestingKnobs
	Manager *manager.TestingKnobs
	Fencing *fencing.TestingKnobs
	Cohort  *cohort.TestingKnobs
}
