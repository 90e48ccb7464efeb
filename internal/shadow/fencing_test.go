package shadow

import (
	"math/rand/v2"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
)

func fencingEnv() locktest.FencingEnv { return fencingEnvWith(nil) }

// fencingEnvWith builds its Lockers with planted defects k (nil for none).
func fencingEnvWith(k *TestingKnobs) locktest.FencingEnv {
	var seed uint64
	return locktest.FencingEnv{
		NewStore: func(t *testing.T) lockstep.Store { return model.New(&clock.Local{}) },
		NewLocker: func(t *testing.T, s lockstep.Store, tm locktest.Timing, g *clock.Global) locktest.Locker {
			seed++
			l, err := New(s, &Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Fencing: g, Rand: rand.New(rand.NewPCG(seed, 11)), TestingKnobs: k})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	}
}

// Legacy-mode locks of this library draw a token too; the legacy rows are
// unchanged (TestShadowLock_FrozenFormat).
func TestShadowLock_Fencing(t *testing.T) { locktest.RunFencing(t, fencingEnv()) }
