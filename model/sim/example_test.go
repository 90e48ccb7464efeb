package sim_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

// firstChoice is the benign scheduler: every choice is 0 (all replicas
// answer, messages in order).
type firstChoice struct{}

func (firstChoice) Choose(string, int) int { return 0 }

// oneHolder is Example's test: one process takes and releases a queue lock
// on a simulated 3-replica cluster.
func oneHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := sim.New(sim.Config{})
		p := s.AddProcess("p0")
		l, err := queuelock.New(p.Store(), &queuelock.Options{TTL: 6 * time.Second, Clock: p.Clock(), ProcessID: p.Name})
		require.NoError(t, err)
		done := false
		var lockErr, unlockErr error
		p.Go(func(ctx context.Context) {
			h, err := l.Lock(ctx, "id")
			if lockErr = err; err == nil {
				unlockErr = h.Unlock(context.WithoutCancel(ctx))
				done = true
			}
		})
		s.Settle()
		for steps := 0; !done && steps < 1000; steps++ {
			if ys := s.Runnable(); len(ys) > 0 {
				s.Grant(ys[0], firstChoice{})
			} else if !s.Tick() {
				break
			}
		}
		// The process's goroutines, the lock's lease scheduler among them,
		// run only when granted: crash them all before closing the Locker.
		require.True(t, s.Close(), "yields left after Close")
		_ = l.Close(context.Background())
		require.True(t, done, "the lock was not taken within 1000 steps (Lock: %v)", lockErr)
		require.NoError(t, unlockErr)
	})
}

// A simulation runs production lock code as simulated processes on a
// simulated cluster inside a testing/synctest bubble; the test is the
// scheduler, choosing which request runs, which message is delivered and
// when time moves (propertytests draws those choices with rapid). oneHolder
// in this file always picks the first runnable request; run it from a test:
//
//	func TestOneHolder(t *testing.T) { oneHolder(t) }
func Example() {
	_ = oneHolder
}

func TestExample_OneHolder(t *testing.T) { oneHolder(t) }
