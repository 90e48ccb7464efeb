package migration

import (
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/internal/cohort"
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
//   - AdoptWithoutCensus makes Adopt (share.go) skip the admission (flag,
//     census write, phase read) and the census count: a Controller can
//     commit a phase that forbids new while the adopted new lock is held.
//   - AheadBeforeAdmission lets a lock of mode new take a fencing token
//     drawn ahead before the phase read that admitted it: drawn in an
//     earlier new phase, before a rollback during which a legacy holder
//     drew a higher token, it is below that holder's.

// TestingKnobs plant deliberate defects for negative controls (knobs.go
// says what each does). Leave them nil.
type TestingKnobs struct {
	DrainSkipsRecheck    bool
	CensusUnbound        bool
	AdoptWithoutCensus   bool
	AheadBeforeAdmission bool

	// Defects of the lock manager, the combined Locker, the token draw and
	// local handoff.
	Manager  *manager.TestingKnobs
	Combined *combined.TestingKnobs
	Fencing  *fencing.TestingKnobs
	Cohort   *cohort.TestingKnobs
}
