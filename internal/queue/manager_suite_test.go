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
