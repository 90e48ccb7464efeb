package combine

import (
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// TestingKnobs switch on planted defects: deliberate bugs, which this
// module's negative controls (propertytests/doc.go) switch on to prove that
// the model checks' properties catch them. They enter through
// Options.TestingKnobs or ComposeOptions.TestingKnobs (the halves' own go in
// Options.Queue and Options.Legacy). Leave them nil: every one of them breaks the lock.
type TestingKnobs struct {
	// CombinedSharedQueueHalf takes the queue half in the access asked for
	// instead of exclusively: every compatible holder of the queue lock then
	// contends on the legacy half, whose lock is not FIFO, and a reader can
	// be starved there.
	CombinedSharedQueueHalf bool

	// Manager and Fencing reach the planted defects of the lock-manager and
	// fencing code this Locker uses.
	Manager *manager.TestingKnobs
	Fencing *fencing.TestingKnobs
}

// ManagerKnobs returns the lock manager's knobs of k, nil for a nil k.
func (k *TestingKnobs) ManagerKnobs() *manager.TestingKnobs {
	if k == nil {
		return nil
	}
	return k.Manager
}
