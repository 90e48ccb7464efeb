package migration

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// fencingEnv runs the fencing scenarios through a migration.Locker in mode.
func fencingEnv(mode lockstep.Mode, phase ...lockstep.Mode) locktest.FencingEnv {
	return fencingEnvWith(nil, mode, phase...)
}

// fencingEnvWith builds its Lockers with planted defects k (nil for none).
func fencingEnvWith(k *TestingKnobs, mode lockstep.Mode, phase ...lockstep.Mode) locktest.FencingEnv {
	var n uint64
	return locktest.FencingEnv{
		NewStore: func(t *testing.T) lockstep.Store {
			s := newStore()
			setPhase(t, newController(t, s, 0), phase...)
			return s
		},
		NewLocker: func(t *testing.T, s lockstep.Store, tm locktest.Timing, g *clock.Global) locktest.Locker {
			n++
			l, err := New(s, flagOf(mode), &Options{Clock: tm.Clock, ProcessID: fmt.Sprintf("p%d", n),
				Queue:        &queuelock.Options{TTL: tm.TTL, Renew: tm.Renew, Poll: 10e6},
				Legacy:       &shadowlock.Options{TTL: tm.TTL, Renew: tm.Renew, Rand: rand.New(rand.NewPCG(n, 7))},
				Fencing:      g,
				CensusTTL:    testCensusTTL,
				Host:         "testhost",
				Version:      "v-test",
				PhaseCache:   100e6,
				TestingKnobs: k,
			})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	}
}

// Locks taken through a migration.Locker carry a fencing token in every
// mode, ordered as ownership.
func TestMigration_Fencing(t *testing.T) {
	for _, tc := range []struct {
		mode  lockstep.Mode
		phase []lockstep.Mode
	}{
		{lockstep.ModeLegacy, nil},
		{lockstep.ModeCombined, []lockstep.Mode{lockstep.ModeCombined}},
		{lockstep.ModeNew, []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew}},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) { locktest.RunFencing(t, fencingEnv(tc.mode, tc.phase...)) })
	}
}

func TestNew_RefusesFencingOnTheAlgorithms(t *testing.T) {
	s := newStore()
	g, _ := clock.NewGlobal(s, "", &clock.Local{})
	for name, o := range map[string]*Options{
		"queue":  {Queue: &queuelock.Options{Fencing: g}},
		"legacy": {Legacy: &shadowlock.Options{Fencing: g}},
	} {
		if _, err := New(s, flagOf(lockstep.ModeNew), withIdentity(o, nil, "p")); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("%s: New = %v, want ErrInvalidConfig", name, err)
		}
	}
}
