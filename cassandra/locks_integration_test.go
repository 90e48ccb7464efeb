//go:build integration

package cassandra_test

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// TestLocks runs the lock behaviour suite of the core issue — the same one the
// algorithms pass on the model — on real Cassandra, in real time, for every
// algorithm. Each scenario gets its own row-key prefix, so the algorithms'
// suites run in parallel (as many at once as go test's -parallel allows).
func TestLocks(t *testing.T) {
	run := time.Now().UnixNano()
	var scenario atomic.Int64
	env := func(newLocker func(s lockstep.Store, tm locktest.Timing, seed uint64) (locktest.Locker, error)) locktest.Env {
		var seed uint64
		return locktest.Env{
			Scale: 2,
			NewStore: func(t *testing.T) lockstep.Store {
				return locktest.Prefixed(newStore(t), fmt.Sprintf("it/%x/%d/", run, scenario.Add(1)))
			},
			NewLocker: func(t *testing.T, s lockstep.Store, tm locktest.Timing) locktest.Locker {
				seed++
				l, err := newLocker(s, tm, seed)
				if err != nil {
					t.Fatal(err)
				}
				return l
			},
		}
	}
	t.Run("new", func(t *testing.T) {
		t.Parallel()
		locktest.Run(t, env(func(s lockstep.Store, tm locktest.Timing, _ uint64) (locktest.Locker, error) {
			return queuelock.New(s, &queuelock.Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Poll: 10 * time.Millisecond})
		}))
	})
	t.Run("legacy", func(t *testing.T) {
		t.Parallel()
		locktest.Run(t, env(func(s lockstep.Store, tm locktest.Timing, seed uint64) (locktest.Locker, error) {
			return shadowlock.New(s, &shadowlock.Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Rand: rand.New(rand.NewPCG(seed, 1))})
		}))
	})
	t.Run("combined", func(t *testing.T) {
		t.Parallel()
		locktest.Run(t, env(func(s lockstep.Store, tm locktest.Timing, seed uint64) (locktest.Locker, error) {
			return combined.New(s, &combined.Options{
				Queue:  &queuelock.Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Poll: 10 * time.Millisecond},
				Legacy: &shadowlock.Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Rand: rand.New(rand.NewPCG(seed, 2))},
			})
		}))
	})
}
