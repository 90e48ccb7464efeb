package queue

import (
	"context"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
)

func newModel(t *testing.T) lockstep.Store { return model.New(&clock.Local{}) }

func TestQueueLock_Suite(t *testing.T) {
	locktest.Run(t, locktest.Env{
		Virtual:  true,
		NewStore: newModel,
		NewLocker: func(t *testing.T, s lockstep.Store, tm locktest.Timing) locktest.Locker {
			l, err := New(s, &Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Poll: 10e6})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	})
}

var _ = context.Background
