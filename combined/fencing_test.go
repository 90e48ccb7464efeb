package combined

import (
	"errors"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

func fencingEnv() locktest.FencingEnv { return fencingEnvWith(nil) }

// fencingEnvWith builds its Lockers with planted defects k (nil for none).
func fencingEnvWith(k *TestingKnobs) locktest.FencingEnv {
	var seed uint64
	return locktest.FencingEnv{
		NewStore: func(t *testing.T) lockstep.Store { return model.New(&clock.Local{}) },
		NewLocker: func(t *testing.T, s lockstep.Store, tm locktest.Timing, g *clock.Global) locktest.Locker {
			seed++
			o := opts(tm, seed)
			o.Fencing = g
			o.TestingKnobs = k
			l, err := New(s, o)
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	}
}

// One token per combined acquisition, drawn once both halves are held.
func TestCombined_Fencing(t *testing.T) { locktest.RunFencing(t, fencingEnv()) }

func TestCombined_RefusesFencingOnTheHalves(t *testing.T) {
	s := model.New(model.NewManualClock(0))
	g, _ := clock.NewGlobal(s, "", model.NewManualClock(0))
	for name, o := range map[string]*Options{
		"queue half":  {Queue: &queuelock.Options{Fencing: g}},
		"legacy half": {Legacy: &shadowlock.Options{Fencing: g}},
	} {
		if _, err := New(s, o); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("%s: New = %v, want ErrInvalidConfig", name, err)
		}
	}
}
