package queue

import (
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
)

var fencingEnv = fencingEnvWith(nil)

// fencingEnvWith builds its Lockers with planted defects k (nil for none).
func fencingEnvWith(k *TestingKnobs) locktest.FencingEnv {
	return locktest.FencingEnv{
		NewStore: func(t *testing.T) lockstep.Store { return model.New(&clock.Local{}) },
		NewLocker: func(t *testing.T, s lockstep.Store, tm locktest.Timing, g *clock.Global) locktest.Locker {
			l, err := New(s, &Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Poll: 10 * time.Millisecond, Fencing: g, TestingKnobs: k})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	}
}

func TestQueueLock_Fencing(t *testing.T) { locktest.RunFencing(t, fencingEnv) }
