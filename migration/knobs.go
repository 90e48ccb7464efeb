package migration

import (
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// TestingKnobs switch on planted defects: deliberate bugs, each restoring
// one that was found and fixed, which this module's negative controls
// (propertytests/doc.go) switch on to prove that the model checks'
// properties catch them. They enter through Options.TestingKnobs (a
// Locker's) or ControllerOptions.TestingKnobs (a Controller's); the inner
// Lockers' own go in Options.Queue and Options.Legacy. Leave them nil: every
// one of them breaks the migration's guarantees.
type TestingKnobs struct {
	// DrainSkipsRecheck makes a Controller commit the target phase right
	// after writing the intent, trusting the census read that ended its
	// drain instead of reading the census again: a process that began using
	// a mode the target forbids between that read and the intent is
	// committed past.
	DrainSkipsRecheck bool
	// CensusUnbound leaves a lock out of its census epoch: when the
	// heartbeat goes stale (the Controller may no longer see the process),
	// the lock's Lost stays open.
	CensusUnbound bool

	// Manager reaches the planted defects of the Locker's lock manager,
	// Combined those of its combined Locker, and Fencing those of the token
	// draw in every mode.
	Manager  *manager.TestingKnobs
	Combined *combined.TestingKnobs
	Fencing  *fencing.TestingKnobs
}
