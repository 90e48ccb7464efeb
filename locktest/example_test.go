package locktest_test

import (
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// Every Locker — each algorithm, and a wrapper of your own — is held to the
// same contract by running the suite from a test of its own. Virtual runs
// each scenario on fake time (testing/synctest), so TTLs pass instantly; a
// real store leaves it false and sets Scale.
func ExampleRun() {
	TestMyLocker := func(t *testing.T) {
		locktest.Run(t, locktest.Env{
			Virtual:  true,
			NewStore: func(*testing.T) lockstep.Store { return model.New(&clock.Local{}) },
			NewLocker: func(t *testing.T, s lockstep.Store, tm locktest.Timing) locktest.Locker {
				l, err := queuelock.New(s, &queuelock.Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock})
				if err != nil {
					t.Fatal(err)
				}
				return l
			},
		})
	}
	_ = TestMyLocker
}
