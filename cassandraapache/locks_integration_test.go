//go:build integration

package cassandraapache_test

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

// lockers builds each algorithm's locker for the lock suite, named as the
// modes are: the same configurations package cassandra's TestLocks uses.
var lockers = []struct {
	mode string
	new  func(s lockstep.Store, tm locktest.Timing, seed uint64) (locktest.Locker, error)
}{
	{"new", func(s lockstep.Store, tm locktest.Timing, _ uint64) (locktest.Locker, error) {
		return queuelock.New(s, queueOptions(tm))
	}},
	{"legacy", func(s lockstep.Store, tm locktest.Timing, seed uint64) (locktest.Locker, error) {
		return shadowlock.New(s, legacyOptions(tm, seed, 1))
	}},
	{"combined", func(s lockstep.Store, tm locktest.Timing, seed uint64) (locktest.Locker, error) {
		return combined.New(s, &combined.Options{Queue: queueOptions(tm), Legacy: legacyOptions(tm, seed, 2)})
	}},
}

func queueOptions(tm locktest.Timing) *queuelock.Options {
	return &queuelock.Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Poll: 10 * time.Millisecond}
}

func legacyOptions(tm locktest.Timing, seed, stream uint64) *shadowlock.Options {
	return &shadowlock.Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Rand: rand.New(rand.NewPCG(seed, stream))}
}

// TestLocks runs the lock behaviour suite, the same test function the
// algorithms pass on the model and on gocql, on real Cassandra through the
// v2 driver, in real time, for every algorithm. Each scenario gets its own
// row-key prefix, so the algorithms' suites run in parallel (as many at once
// as go test's -parallel allows).
func TestLocks(t *testing.T) {
	run := time.Now().UnixNano()
	var scenario atomic.Int64
	for _, l := range lockers {
		t.Run(l.mode, func(t *testing.T) {
			t.Parallel()
			var seed uint64
			locktest.Run(t, locktest.Env{
				Scale: 2,
				NewStore: func(t *testing.T) lockstep.Store {
					return locktest.Prefixed(newStore(t), fmt.Sprintf("it-v2/%x/%d/", run, scenario.Add(1)))
				},
				NewLocker: func(t *testing.T, s lockstep.Store, tm locktest.Timing) locktest.Locker {
					seed++
					lk, err := l.new(s, tm, seed)
					if err != nil {
						t.Fatal(err)
					}
					return lk
				},
			})
		})
	}
}
