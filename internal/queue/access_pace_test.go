package queue

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// A writer that enqueues behind two readers already holding is next in line
// (only holders stand in front of it), though its position is 2. Neither
// reader's claim saw it, so no release wakes it: like any next-in-line
// waiter whose wake-up is lost, it must notice the release within Poll
// (TestQueueLock_LostWakeUpDelaysByAtMostThePoll), not sleep SlowPoll as a
// waiter far back in line does.
func TestAccess_WriterBehindHoldingReadersPollsAsNextInLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		n := &memNet{handlers: map[string]func([]byte){}}
		r1, r2, w := newWakeLocker(t, s, n, "r1"), newWakeLocker(t, s, n, "r2"), newWakeLocker(t, s, n, "w")
		l1, err := lockIn(ctx, r1, "x", lockstep.Shared)
		require.NoError(t, err)
		l2, err := lockIn(ctx, r2, "x", lockstep.Shared)
		require.NoError(t, err)

		got := make(chan time.Time, 1)
		go func() {
			lw, err := lockIn(ctx, w, "x", lockstep.Exclusive)
			require.NoError(t, err)
			got <- time.Now()
			require.NoError(t, lw.Unlock(ctx))
		}()
		time.Sleep(100 * time.Millisecond) // the writer has read once and sleeps
		require.NoError(t, l2.Unlock(ctx))
		require.NoError(t, l1.Unlock(ctx))
		released := time.Now()
		d := (<-got).Sub(released)
		require.LessOrEqual(t, d, wakePoll, "the writer, next in line behind holders only, waited %v after the last release", d)
	})
}
