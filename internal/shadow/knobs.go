package shadow

import (
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// TestingKnobs switch on planted defects: deliberate bugs, which this
// module's negative controls (propertytests/doc.go) switch on to prove that
// the model checks' properties catch them. They enter through Options.TestingKnobs and are
// read at fixed points of a round, never through its context. Leave them
// nil: every one of them breaks the lock.
type TestingKnobs struct {
	// ReuseOwnerAfterStoreError retries a round that hit a store error under
	// the same owner id: the retry can read its own half-deleted main cell
	// as a held lock just before its delete lands.
	ReuseOwnerAfterStoreError bool
	// NoRoundDeadline lets a round write its main cell however long ago its
	// shadow write was sent: a round stalled past the TTL lets its shadow
	// cell expire under it, and a contender through.
	NoRoundDeadline bool
	// CombinedOverlapUnsafe sends a combined acquisition's shadow read and
	// main re-read together instead of one after the other's reply: a read
	// of main that overtakes the shadow read can miss a holder.
	CombinedOverlapUnsafe bool
	// LegacyLossUnwatched leaves a combined lock's legacy lease out of its
	// loss signal: a holder whose legacy renewals fail works on after its
	// legacy cell expired and a legacy process took the lock.
	LegacyLossUnwatched bool

	// Lease, Manager and Fencing reach the planted defects of the shared
	// lease, lock-manager and fencing code this Locker uses.
	Lease   *lease.TestingKnobs
	Manager *manager.TestingKnobs
	Fencing *fencing.TestingKnobs
}
