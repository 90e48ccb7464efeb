package migration

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// The shared suite, run against a migration.Locker in each mode: the
// wrapper must keep every contract of the algorithm it wraps.
func TestMigration_Suite(t *testing.T) {
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
			locktest.Run(t, locktest.Env{
				Virtual: true,
				NewStore: func(t *testing.T) lockstep.Store {
					s := newStore()
					setPhase(t, newController(t, s, 0), tc.phase...)
					return s
				},
				NewLocker: func(t *testing.T, s lockstep.Store, tm locktest.Timing) locktest.Locker {
					n++
					l, err := New(s, flagOf(tc.mode), &Options{Clock: tm.Clock, ProcessID: fmt.Sprintf("p%d", n),
						Queue:      &queuelock.Options{TTL: tm.TTL, Renew: tm.Renew, Poll: 10e6},
						Legacy:     &shadowlock.Options{TTL: tm.TTL, Renew: tm.Renew, Rand: rand.New(rand.NewPCG(n, 7))},
						CensusTTL:  testCensusTTL,
						Host:       "testhost",
						Version:    "v-test",
						PhaseCache: 100e6,
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
