package deadlock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

var bg = context.Background()

func newDetector(t *testing.T, s lockstep.Store) *Detector {
	t.Helper()
	d, err := New(Config{Store: s, Clock: &clock.Local{}, Process: "proc"})
	require.NoError(t, err)
	return d
}

// fakeLock is the Lock a wait's fn returns.
type fakeLock struct{ lockstep.Lock }

// blocked is an fn that waits until release is closed (then succeeds) or
// its ctx ends.
func blocked(release <-chan struct{}) func(context.Context) (lockstep.Lock, error) {
	return func(ctx context.Context) (lockstep.Lock, error) {
		select {
		case <-release:
			return fakeLock{}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// run is a Locker's blocking take as a wait of d: Begin, the take with
// Begin's ctx, Finish.
func run(d *Detector, ctx context.Context, identity any, req lockstep.Request, holds func() []Hold,
	take func(context.Context) (lockstep.Lock, error)) (lockstep.Lock, error) {
	return runCommented(d, ctx, identity, "", req, holds, take)
}

// runCommented is run for a unit of work with comment.
func runCommented(d *Detector, ctx context.Context, identity any, comment string, req lockstep.Request, holds func() []Hold,
	take func(context.Context) (lockstep.Lock, error)) (lockstep.Lock, error) {
	w, ctx := d.Begin(ctx, identity, comment, req, holds)
	return w.Finish(take(ctx))
}

func holding(ids ...string) func() []Hold {
	return func() []Hold {
		var hs []Hold
		for _, id := range ids {
			hs = append(hs, Hold{ID: id, Access: lockstep.Exclusive, Owner: "owner-" + id})
		}
		return hs
	}
}

// A wait is published only after After, and its record is gone when Finish
// returns (R1).
func TestWait_PublishesAfterThresholdAndDeletesAtTheEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := model.New(&clock.Local{})
		d := newDetector(t, s)
		release := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			_, err := runCommented(d, bg, "me", "why\xff\xfe", lockstep.Request{ID: "b"}, holding("a"), blocked(release))
			done <- err
		}()
		time.Sleep(900 * time.Millisecond)
		recs, err := d.read(bg)
		require.NoError(t, err)
		assert.Empty(t, recs, "not published before After")
		time.Sleep(time.Second)
		recs, err = d.read(bg)
		require.NoError(t, err)
		require.Len(t, recs, 1)
		assert.Equal(t, lockstep.Request{ID: "b"}, recs[0].Waits)
		assert.Equal(t, []Hold{{ID: "a", Access: lockstep.Exclusive, Owner: "owner-a"}}, recs[0].Holds)
		assert.Equal(t, "why\xff\xfe", recs[0].Comment, "byte for byte")
		assert.Equal(t, "proc", recs[0].Process)
		close(release)
		require.NoError(t, <-done)
		recs, err = d.read(bg)
		require.NoError(t, err)
		assert.Empty(t, recs, "deleted when the wait ended")
	})
}

// Two identities of two detectors waiting for each other's ids: exactly one
// fails with a DeadlockError, having withdrawn; the other keeps waiting.
func TestWait_OneOfTwoCrossedWaitsFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := model.New(&clock.Local{})
		d1, d2 := newDetector(t, s), newDetector(t, s)
		ctx, cancel := context.WithCancel(bg)
		defer cancel()
		never := make(chan struct{})
		errs := make(chan error, 2)
		go func() {
			_, err := run(d1, ctx, "one", lockstep.Request{ID: "b"}, holding("a"), blocked(never))
			errs <- err
		}()
		go func() {
			_, err := run(d2, ctx, "two", lockstep.Request{ID: "a"}, holding("b"), blocked(never))
			errs <- err
		}()
		err := <-errs
		var de *lockstep.DeadlockError
		require.True(t, errors.As(err, &de), "%v", err)
		require.ErrorIs(t, err, lockstep.ErrDeadlock)
		assert.NotErrorIs(t, err, context.Canceled, "the withdrawal's own cancellation is not the caller's")
		require.Len(t, de.Cycle, 2)
		time.Sleep(10 * time.Second)
		assert.Empty(t, errs, "the other keeps waiting")
		recs, err := d1.read(bg)
		require.NoError(t, err)
		assert.Len(t, recs, 1, "only the survivor's record is left")
		cancel()
		assert.ErrorIs(t, <-errs, context.Canceled, "a caller's cancellation is returned as itself")
	})
}

// Releasing a listed holding while the wait goes on deletes the record and
// publishes it again under a new name, without the holding (R2).
func TestRetract_RenamesTheRecord(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := model.New(&clock.Local{})
		d := newDetector(t, s)
		var mu sync.Mutex
		held := []string{"a", "c"}
		holds := func() []Hold {
			mu.Lock()
			defer mu.Unlock()
			return holding(held...)()
		}
		release := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			_, err := run(d, bg, "me", lockstep.Request{ID: "b"}, holds, blocked(release))
			done <- err
		}()
		time.Sleep(1500 * time.Millisecond)
		before, err := d.read(bg)
		require.NoError(t, err)
		require.Len(t, before, 1)
		d.Retract(bg, "someone else", "a")
		after, err := d.read(bg)
		require.NoError(t, err)
		assert.Equal(t, before, after, "another identity's release changes nothing")

		mu.Lock()
		held = []string{"c"}
		mu.Unlock()
		d.Retract(bg, "me", "a")
		gone, err := d.read(bg)
		require.NoError(t, err)
		assert.Empty(t, gone, "withdrawn before the release")
		time.Sleep(time.Second)
		again, err := d.read(bg)
		require.NoError(t, err)
		require.Len(t, again, 1)
		assert.NotEqual(t, before[0].Name, again[0].Name, "a new name")
		assert.Equal(t, []Hold{{ID: "c", Access: lockstep.Exclusive, Owner: "owner-c"}}, again[0].Holds)
		close(release)
		require.NoError(t, <-done)
	})
}

func TestNew_RefusesBadOptions(t *testing.T) {
	s := model.New(&clock.Local{})
	for _, c := range []struct {
		d    lockstep.DeadlockDetection
		want string
	}{
		{lockstep.DeadlockDetection{Every: time.Millisecond}, "Deadlock.Every: 1ms is below 100ms"},
		{lockstep.DeadlockDetection{After: -time.Second}, "Deadlock.After: -1s is negative"},
		{lockstep.DeadlockDetection{Table: "Waits"}, `Deadlock.Table: "Waits" is not a safe identifier`},
	} {
		_, err := New(Config{Store: s, Clock: &clock.Local{}, Detection: c.d})
		require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
		assert.Contains(t, err.Error(), c.want)
	}
}

// Takes raises the access of a wait's record to the one its take really
// takes: before the first write, and between writes under the same name.
func TestWait_TakesPublishesTheAccessTaken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := model.New(&clock.Local{})
		d := newDetector(t, s)
		release := make(chan struct{})
		w, ctx := d.Begin(bg, "me", "", lockstep.Request{ID: "b", Access: lockstep.Shared}, holding("a"))
		done := make(chan error, 1)
		go func() {
			_, err := w.Finish(blocked(release)(ctx))
			done <- err
		}()
		time.Sleep(1500 * time.Millisecond) // one write, asking Shared
		recs, err := d.read(bg)
		require.NoError(t, err)
		require.Len(t, recs, 1)
		assert.Equal(t, lockstep.Request{ID: "b", Access: lockstep.Shared}, recs[0].Waits)
		name := recs[0].Name
		w.Takes(lockstep.Exclusive)
		time.Sleep(time.Second) // the next write
		recs, err = d.read(bg)
		require.NoError(t, err)
		require.Len(t, recs, 1)
		assert.Equal(t, lockstep.Request{ID: "b", Access: lockstep.Exclusive}, recs[0].Waits)
		assert.Equal(t, name, recs[0].Name, "the same name: the record only says more of the truth")
		close(release)
		require.NoError(t, <-done)
	})
}
