package queuelock

import (
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// TestingKnobs switch on planted defects: deliberate bugs, each restoring
// one that was found and fixed, which this module's negative controls
// (propertytests/doc.go) switch on to prove that the model checks' properties
// catch them. They enter through Options.TestingKnobs and are read at fixed
// points of an acquisition, never through its context. Leave them nil:
// every one of them breaks the lock.
type TestingKnobs struct {
	// SkipOwnerReread makes a claim succeed right after writing the owner
	// cell, without reading the owner cells.
	SkipOwnerReread bool
	// ReuseTombstonedTimestamp rewrites an owner cell, after deleting it in
	// a lost claim race, with the tombstone's own timestamp, so the
	// tombstone wins the tie and the write vanishes.
	ReuseTombstonedTimestamp bool
	// QueueCellsWithoutTTL writes queue cells that never expire, so a
	// crashed waiter blocks the queue for ever.
	QueueCellsWithoutTTL bool
	// IgnoreContentionHint takes the fast path even on an id this Locker
	// just saw contended, so an arrival whose Lock calls are cancelled one
	// after another writes an owner cell each time and can keep failing the
	// queue head's claims.
	IgnoreContentionHint bool
	// NoFloorLag raises the read floor to the oldest live queue cell seen,
	// with no lag behind the clock: a process whose clock leads, re-locking
	// at once, bypasses a lagging waiter again and again.
	NoFloorLag bool
	// IgnorePublishedFloor disregards the published floor cell, so a waiter
	// whose name another process's floor has passed keeps its place where
	// that process never sees it.
	IgnorePublishedFloor bool
	// WakeGrants takes a wake-up (Options.Wake) for a grant: the woken
	// waiter writes its owner cell and holds, without the claim's read.
	WakeGrants bool
	// WakeOnly makes waiters with wake-ups stop polling: a lost wake-up
	// stalls the line.
	WakeOnly bool
	// ReaderBypass lets a request in any access but Exclusive ignore the
	// line: a stream of readers starves an earlier waiting writer.
	ReaderBypass bool
	// StaleOwnerColumn lets a handle inherit its Locker's owner column among
	// the cells a failed cleanup left behind, so a retried Unlock deletes it
	// while a newer acquisition of the same Locker holds the id.
	StaleOwnerColumn bool
	// KeepIDState never frees per-id state (read floors, contention hints)
	// and publishes the floor cell without a TTL.
	KeepIDState bool
	// SkipForeignCells logs a cell of the lock's partition that no Locker
	// writes and goes on without it, so an owner cell naming no owner is not
	// counted by the claim's check.
	SkipForeignCells bool
	// RetryNeedsFreeID makes a retried Unlock delete its owner cell only
	// when no goroutine of the Locker holds or awaits the id: a reader's
	// leftover owner cell then keeps a writer out for a TTL.
	RetryNeedsFreeID bool
	// ShareStopsGiver makes Share stop the giver's renewals at once, before
	// any receiver has renewed: the lock's cells are renewed by nobody while
	// the giver still believes it holds (and until the receiver's Adopt).
	ShareStopsGiver bool
	// AdoptWithoutWitness makes Adopt write its owner cell without reading
	// first or after, so it adopts a lock whose holders are gone, over a
	// third process that acquired it meanwhile.
	AdoptWithoutWitness bool
	// HandoffFromRead makes a waiter that confirms a handoff count its
	// lease from its confirmation read's send instead of from its queue
	// cell's write the releaser saw: it may work on after the handed cell
	// expired.
	HandoffFromRead bool
	// HandoffNamesLast makes a releaser hand the lock to the last waiter in
	// line its claim saw, not the next one: the waiters in between are
	// bypassed, again and again.
	HandoffNamesLast bool

	// Lease, Manager and Fencing reach the planted defects of the shared
	// lease, lock-manager and fencing code this Locker uses.
	Lease   *lease.TestingKnobs
	Manager *manager.TestingKnobs
	Fencing *fencing.TestingKnobs
}
