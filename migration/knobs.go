package migration

import (
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// The planted defects, in full (docs/verification.md has the property that
// catches each):
//
//   - DrainSkipsRecheck makes a Controller commit the target phase right
//     after writing the intent, trusting the census read that ended its
//     drain instead of reading the census again: a process that began using
//     a mode the target forbids between that read and the intent is
//     committed past.
//   - CensusUnbound leaves a lock out of its census epoch: when the
//     heartbeat goes stale (the Controller may no longer see the process),
//     the lock's Lost stays open.
//   - AdoptWithoutCensus makes Adopt (share.go) take the handed lock with
//     no admission: no flag check, no census write before the phase read,
//     no phase read, and the lock not counted in the census. A Controller
//     can then commit a phase that forbids new while the receiver holds the
//     adopted new lock.

// TestingKnobs plant deliberate defects for this module's negative controls
// (propertytests), through Options.TestingKnobs or
// ControllerOptions.TestingKnobs; the comment above the type, in knobs.go,
// says what each does. Leave them nil: each breaks the migration's
// guarantees.
type TestingKnobs struct {
	DrainSkipsRecheck  bool // commit without re-reading the census
	CensusUnbound      bool // a lock outside its census epoch
	AdoptWithoutCensus bool // Adopt without admission or census count

	// Manager reaches the planted defects of the Locker's lock manager,
	// Combined those of its combined Locker, and Fencing those of the token
	// draw in every mode.
	Manager  *manager.TestingKnobs
	Combined *combined.TestingKnobs
	Fencing  *fencing.TestingKnobs
}
