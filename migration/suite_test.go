package migration

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// suiteModes runs body once per mode, as a subtest named after it, with a
// store factory whose phase allows that mode and a factory of the options
// of the suite's n-th process (clock, TTL and Renew as a suite's timing
// gives them, zero for the defaults; sep the hierarchy separator).
func suiteModes(t *testing.T, body func(t *testing.T, mode lockstep.Mode, newStore func(*testing.T) lockstep.Store,
	options func(clk lockstep.Clock, ttl, renew time.Duration, sep string) *Options)) {
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
			newStore := func(t *testing.T) lockstep.Store {
				s := newStore()
				setPhase(t, newController(t, s, 0), tc.phase...)
				return s
			}
			options := func(clk lockstep.Clock, ttl, renew time.Duration, sep string) *Options {
				n++
				return &Options{Clock: clk, ProcessID: fmt.Sprintf("p%d", n),
					Queue:      &queuelock.Options{TTL: ttl, Renew: renew, Poll: 10 * time.Millisecond},
					Legacy:     &shadowlock.Options{TTL: ttl, Renew: renew, Rand: rand.New(rand.NewPCG(n, 7))},
					CensusTTL:  testCensusTTL,
					Host:       "testhost",
					Version:    "v-test",
					PhaseCache: 100 * time.Millisecond,
					Separator:  sep,
				}
			}
			body(t, tc.mode, newStore, options)
		})
	}
}

// The shared suite, run against a migration.Locker in each mode: the
// wrapper must keep every contract of the algorithm it wraps.
func TestMigration_Suite(t *testing.T) {
	suiteModes(t, func(t *testing.T, mode lockstep.Mode, newStore func(*testing.T) lockstep.Store,
		options func(lockstep.Clock, time.Duration, time.Duration, string) *Options) {
		locktest.Run(t, locktest.Env{
			Virtual:  true,
			NewStore: newStore,
			NewLocker: func(t *testing.T, s lockstep.Store, tm locktest.Timing) locktest.Locker {
				l, err := New(s, flagOf(mode), options(tm.Clock, tm.TTL, tm.Renew, ""))
				if err != nil {
					t.Fatal(err)
				}
				return l
			},
		})
	})
}
