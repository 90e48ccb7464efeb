package queue

import (
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/locktest/managertest"
)

// Seed 003's functional scenarios (locktest/managertest) on the model.
func TestQueueLock_ManagerSuite(t *testing.T) {
	managertest.Run(t, managertest.Env{
		Virtual:  true,
		NewStore: newModel,
		NewLocker: func(t *testing.T, s lockstep.Store, sep string) lockstep.GroupLocker {
			l, err := New(s, &Options{Poll: 10e6, Separator: sep})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		NewDetecting: func(t *testing.T, s lockstep.Store, sep string, d lockstep.DeadlockDetection) lockstep.GroupLocker {
			l, err := New(s, &Options{Poll: 10e6, Separator: sep, Deadlock: &d})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	})
}

// The same scenarios with local handoff on: Transfer shares a lock granted
// by the local-handoff layer, and another goroutine of the worker waits
// behind it in the worker's line. (Retention is left off: it keeps an
// unlocked id from another process's TryLock until its look, which several
// scenarios' TryLocks right after an Unlock do not allow for.)
func TestQueueLock_ManagerSuiteWithLocalHandoff(t *testing.T) {
	managertest.Run(t, managertest.Env{
		Virtual:  true,
		NewStore: newModel,
		NewLocker: func(t *testing.T, s lockstep.Store, sep string) lockstep.GroupLocker {
			l, err := New(s, &Options{Poll: 10e6, Separator: sep, LocalHandoff: 8})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		NewDetecting: func(t *testing.T, s lockstep.Store, sep string, d lockstep.DeadlockDetection) lockstep.GroupLocker {
			l, err := New(s, &Options{Poll: 10e6, Separator: sep, Deadlock: &d, LocalHandoff: 8})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	})
}
