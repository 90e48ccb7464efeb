package migration

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/locktest/managertest"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Seed 003's functional scenarios (locktest/managertest) through a
// migration.Locker in each mode; legacy and combined take every member
// exclusively in their legacy part, so Shared excludes Shared there.
func TestMigration_ManagerSuite(t *testing.T) {
	for _, tc := range []struct {
		mode  lockstep.Mode
		phase []lockstep.Mode // path from legacy that allows mode
	}{
		{lockstep.ModeLegacy, nil},
		{lockstep.ModeCombined, []lockstep.Mode{lockstep.ModeCombined}},
		{lockstep.ModeNew, []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew}},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			var n uint64
			managertest.Run(t, managertest.Env{
				Virtual:       true,
				ExclusiveOnly: tc.mode != lockstep.ModeNew,
				Clients:       []int{1, 8, 40},
				NewStore: func(t *testing.T) lockstep.Store {
					s := newStore()
					setPhase(t, newController(t, s, 0), tc.phase...)
					return s
				},
				NewLocker: func(t *testing.T, s lockstep.Store, sep string) lockstep.GroupLocker {
					n++
					l, err := New(s, flagOf(tc.mode), &Options{ProcessID: fmt.Sprintf("p%d", n),
						Queue:      &queuelock.Options{Poll: 10e6},
						Legacy:     &shadowlock.Options{Rand: rand.New(rand.NewPCG(n, 7))},
						CensusTTL:  testCensusTTL,
						Host:       "testhost",
						Version:    "v-test",
						PhaseCache: 100e6,
						Separator:  sep,
					})
					if err != nil {
						t.Fatal(err)
					}
					return l
				},
			})
		})
	}
}
