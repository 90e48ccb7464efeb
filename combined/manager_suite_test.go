package combined

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest/managertest"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Seed 003's functional scenarios (locktest/managertest) on the model. The
// legacy half takes every member exclusively, so Shared excludes Shared.
func TestCombined_ManagerSuite(t *testing.T) {
	var seed uint64
	managertest.Run(t, managertest.Env{
		Virtual:       true,
		ExclusiveOnly: true,
		NewStore:      func(t *testing.T) lockstep.Store { return model.New(&clock.Local{}) },
		NewLocker: func(t *testing.T, s lockstep.Store, sep string) lockstep.GroupLocker {
			seed++
			l, err := New(s, &Options{
				Queue:     &queuelock.Options{Poll: 10 * time.Millisecond},
				Legacy:    &shadowlock.Options{Rand: rand.New(rand.NewPCG(seed, 13))},
				Separator: sep,
			})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		NewDetecting: func(t *testing.T, s lockstep.Store, sep string, d lockstep.DeadlockDetection) lockstep.GroupLocker {
			seed++
			l, err := New(s, &Options{
				Queue:     &queuelock.Options{Poll: 10 * time.Millisecond},
				Legacy:    &shadowlock.Options{Rand: rand.New(rand.NewPCG(seed, 13))},
				Separator: sep,
				Deadlock:  &d,
			})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	})
}
