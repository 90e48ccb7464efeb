package lockd_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd"
)

func TestRecorder_SeriesCountsPerSecondAndModeWithWaitPercentiles(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	r := lockd.NewRecorder(func() time.Time { return now })
	ctx := context.Background()
	for i := 1; i <= 100; i++ {
		r.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: "hot", Mode: lockstep.ModeNew, Acquired: true, Wait: time.Duration(i) * time.Millisecond})
	}
	r.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: "old", Mode: lockstep.ModeLegacy, Acquired: true, Try: true})
	r.ObserveLease(ctx, lockstep.LeaseEvent{ID: "hot", Mode: lockstep.ModeNew, Lost: true})
	r.ObserveRelease(ctx, lockstep.ReleaseEvent{ID: "hot", Mode: lockstep.ModeNew, WasLost: true})
	now = now.Add(time.Second) // the second is complete
	s := r.Series(lockstep.ModeNew, 3)
	require.Len(t, s, 3)
	last := s[2]
	require.Equal(t, 100, last.Acquired)
	require.Equal(t, 2, last.Losses)
	require.Equal(t, 50*time.Millisecond, last.P50)
	require.Equal(t, 99*time.Millisecond, last.P99)
	require.Zero(t, s[0].Acquired, "a second without events is zeros")
	require.Equal(t, 1, r.Series(lockstep.ModeLegacy, 1)[0].Acquired)
	require.Zero(t, r.Series(lockstep.ModeLegacy, 1)[0].P50, "a TryLock never waits: no wait sample")

	hot := r.Hottest(10, func(string) bool { return true })
	require.Equal(t, "hot", hot[0].ID)
	require.Equal(t, 100, hot[0].Acquired)
	require.Equal(t, 51, hot[0].Contended, "Lock calls that waited 50ms or more")
	require.Empty(t, r.Hottest(10, func(id string) bool { return id == "nope" }))

	now = now.Add(6 * time.Minute)
	require.Empty(t, r.Hottest(10, func(string) bool { return true }), "the window is five minutes")
	require.Zero(t, r.Series(lockstep.ModeNew, 299)[0].Acquired)
}

func TestRecorder_DeadlocksNewestFirstFilteredByTheCaller(t *testing.T) {
	r := lockd.NewRecorder(nil)
	r.Deadlock([]lockstep.DeadlockMember{{Process: "p", Waits: lockstep.Request{ID: "a/1"}}})
	r.Deadlock([]lockstep.DeadlockMember{{Process: "p", Waits: lockstep.Request{ID: "b/1"}}})
	all := r.Deadlocks(func(lockd.DeadlockReport) bool { return true })
	require.Len(t, all, 2)
	require.Equal(t, "b/1", all[0].Cycle[0].Waits.ID)
	only := r.Deadlocks(func(d lockd.DeadlockReport) bool { return d.Cycle[0].Waits.ID == "a/1" })
	require.Len(t, only, 1)
}

// wakeCounter is an Observer that also takes wake events.
type wakeCounter struct {
	lockstep.NopObserver
	wakes, acquires atomic.Int64
}

func (w *wakeCounter) ObserveAcquire(context.Context, lockstep.AcquireEvent) { w.acquires.Add(1) }
func (w *wakeCounter) ObserveWake(context.Context, lockstep.WakeEvent)       { w.wakes.Add(1) }

func TestObservers_PassEveryEventOnAndWakeEventsToThoseThatTakeThem(t *testing.T) {
	w := &wakeCounter{}
	var none lockstep.Observer
	obs := lockd.Observers(none, w, lockd.NewRecorder(nil))
	obs.ObserveAcquire(context.Background(), lockstep.AcquireEvent{ID: "x"})
	wo, ok := obs.(lockstep.WakeObserver)
	require.True(t, ok, "the tee keeps the wake events of an Observer that takes them")
	wo.ObserveWake(context.Background(), lockstep.WakeEvent{Blocked: true})
	require.Equal(t, int64(1), w.acquires.Load())
	require.Equal(t, int64(1), w.wakes.Load())
}
