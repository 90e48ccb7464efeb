package shadow

import (
	"math/rand/v2"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest/managertest"
	"github.com/lockstep-go/lockstep/model"
)

// Seed 003's functional scenarios (locktest/managertest) on the model. The
// legacy wire format has only exclusive locks, so Shared excludes Shared.
// The core's lock manager answers Share (a manager.Locker is a
// lockstep.Sharer) by refusing it: the legacy lock has one renewer per
// owner, so its locks cannot be shared.
func TestShadowLock_ManagerSuite(t *testing.T) {
	seed := uint64(0)
	managertest.Run(t, managertest.Env{
		Virtual:       true,
		ExclusiveOnly: true,
		Unshareable:   true,
		NewStore:      func(t *testing.T) lockstep.Store { return model.New(&clock.Local{}) },
		NewLocker: func(t *testing.T, s lockstep.Store, sep string) lockstep.GroupLocker {
			seed++
			l, err := New(s, &Options{Rand: rand.New(rand.NewPCG(seed, 11)), Separator: sep})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		NewDetecting: func(t *testing.T, s lockstep.Store, sep string, d lockstep.DeadlockDetection) lockstep.GroupLocker {
			seed++
			l, err := New(s, &Options{Rand: rand.New(rand.NewPCG(seed, 11)), Separator: sep, Deadlock: &d})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	})
}
