//go:build integration

package cassandra_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/locktest/managertest"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// TestManagerScenarios runs seed 003's functional scenarios
// (locktest/managertest) — counter, readers beside writers, nested
// directories, reentrancy, deadlock detection — on real Cassandra, in real time, with the
// Lockers of every algorithm. Each case gets its own row-key prefix, so the
// algorithms run in parallel (as many at once as go test's -parallel allows). The
// counter's clients are N = 1, 8 and 40 with K = 2 for the new algorithm;
// the legacy one (randomized backoff, every member exclusive) and combined
// run N = 1 and 8, to keep the test to a few minutes.
func TestManagerScenarios(t *testing.T) {
	run := time.Now().UnixNano()
	var scenario atomic.Int64
	env := func(clients []int, exclusiveOnly bool, newLocker func(s lockstep.Store, sep string, seed uint64, d *lockstep.DeadlockDetection) (lockstep.GroupLocker, error)) managertest.Env {
		var seed uint64
		return managertest.Env{
			Clients:       clients,
			K:             2,
			ExclusiveOnly: exclusiveOnly,
			NewStore: func(t *testing.T) lockstep.Store {
				return locktest.Prefixed(newStore(t), fmt.Sprintf("mgr/%x/%d/", run, scenario.Add(1)))
			},
			NewLocker: func(t *testing.T, s lockstep.Store, sep string) lockstep.GroupLocker {
				seed++
				l, err := newLocker(s, sep, seed, nil)
				if err != nil {
					t.Fatal(err)
				}
				return l
			},
			NewDetecting: func(t *testing.T, s lockstep.Store, sep string, d lockstep.DeadlockDetection) lockstep.GroupLocker {
				seed++
				l, err := newLocker(s, sep, seed, &d)
				if err != nil {
					t.Fatal(err)
				}
				return l
			},
		}
	}
	t.Run("new", func(t *testing.T) {
		t.Parallel()
		managertest.Run(t, env([]int{1, 8, 40}, false, func(s lockstep.Store, sep string, _ uint64, d *lockstep.DeadlockDetection) (lockstep.GroupLocker, error) {
			return queuelock.New(s, &queuelock.Options{Poll: 10 * time.Millisecond, Separator: sep, Deadlock: d})
		}))
	})
	// Options.IntentionRange on every other Locker (docs/algorithms.md,
	// 4.14): the scenarios' readers, writers and directories on a real
	// node, with Lockers whose intention owner cells are in the range
	// beside Lockers whose are not, as during a rollout of the option.
	t.Run("new-intention-range-mixed", func(t *testing.T) {
		t.Parallel()
		managertest.Run(t, env([]int{1, 8}, false, func(s lockstep.Store, sep string, seed uint64, d *lockstep.DeadlockDetection) (lockstep.GroupLocker, error) {
			return queuelock.New(s, &queuelock.Options{Poll: 10 * time.Millisecond, Separator: sep, Deadlock: d, IntentionRange: seed%2 == 0})
		}))
	})
	// A migration.Locker in mode new (phase new in each scenario's
	// prefix): the lock manager above the migration, and Transfer between
	// migration Lockers, whose Adopt goes through the census admission.
	t.Run("migration-new", func(t *testing.T) {
		t.Parallel()
		e := env([]int{1, 8}, false, func(s lockstep.Store, sep string, _ uint64, d *lockstep.DeadlockDetection) (lockstep.GroupLocker, error) {
			return migration.New(s, migration.Static(lockstep.ModeNew), &migration.Options{
				Queue: &queuelock.Options{Poll: 10 * time.Millisecond}, Separator: sep, Deadlock: d})
		})
		fresh := e.NewStore
		e.NewStore = func(t *testing.T) lockstep.Store {
			s := fresh(t)
			ctrl, err := migration.NewController(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew} {
				if err := ctrl.Set(context.Background(), m); err != nil {
					t.Fatalf("phase %v: %v", m, err)
				}
			}
			return s
		}
		managertest.Run(t, e)
	})
	t.Run("legacy", func(t *testing.T) {
		t.Parallel()
		managertest.Run(t, env([]int{1, 8}, true, func(s lockstep.Store, sep string, seed uint64, d *lockstep.DeadlockDetection) (lockstep.GroupLocker, error) {
			return shadowlock.New(s, &shadowlock.Options{Rand: rand.New(rand.NewPCG(seed, 1)), Separator: sep, Deadlock: d})
		}))
	})
	t.Run("combined", func(t *testing.T) {
		t.Parallel()
		managertest.Run(t, env([]int{1, 8}, true, func(s lockstep.Store, sep string, seed uint64, d *lockstep.DeadlockDetection) (lockstep.GroupLocker, error) {
			return combined.New(s, &combined.Options{
				Queue:     &queuelock.Options{Poll: 10 * time.Millisecond},
				Legacy:    &shadowlock.Options{Rand: rand.New(rand.NewPCG(seed, 2))},
				Separator: sep,
				Deadlock:  d,
			})
		}))
	})
}
