package manager

import (
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deadlock"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/setup"
)

// Manager plans a Locker's groups, hierarchical ids and reentrant
// acquisitions, and keeps what lies between their members (the package doc
// says how); the Locker takes each member itself, driving a Run. Safe for
// concurrent use; a Locker has one Manager for its whole life.
type Manager struct {
	sep      string
	overlaps bool               // sep can overlap itself: ids are then checked at their segments' edges (plan.go)
	clock    lockstep.Clock     // for internal/lifecycle.Resumed; may be nil
	det      *deadlock.Detector // nil: deadlock detection off (wait.go)
	knobs    TestingKnobs       // planted defects; zero in production

	// mu guards reg, the reentrancy registry: the member each (holder, id)
	// holds. Only acquisitions for a unit of work (Who.Holder) touch it.
	mu  sync.Mutex
	reg map[regKey]*member
	// handles are the group Locks each holder has not released yet
	// (UnlockAll), guarded by mu too.
	handles map[any]map[*Lock]struct{}
}

// regKey names one holder's acquisition of one id.
type regKey struct {
	holder any
	id     string
}

// New returns a Manager. separator is the hierarchy separator: "" for flat
// ids (no ancestors), or one setup.ValidateSeparator accepts, such as "/";
// a bad one returns its *lockstep.ConfigError.
// clock is the Locker's (nil for none): a call that waited for another of
// the same holder resumes through it (internal/lifecycle.Resumed). det,
// if not nil, publishes the blocking waits and fails the victims of cycles
// among them with lockstep.ErrDeadlock (wait.go; nil: detection off). knobs
// switch on planted defects; nil in production.
func New(separator string, clock lockstep.Clock, det *deadlock.Detector, knobs *TestingKnobs) (*Manager, error) {
	if err := setup.ValidateSeparator(separator); err != nil {
		return nil, err
	}
	m := &Manager{sep: separator, overlaps: selfOverlaps(separator), clock: clock, det: det,
		reg: map[regKey]*member{}, handles: map[any]map[*Lock]struct{}{}, knobs: deref.Of(knobs)}
	return m, nil
}
