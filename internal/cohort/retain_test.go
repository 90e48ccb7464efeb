package cohort

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/model"
)

// watchingStore is the fake inner algorithm with a Watcher: waiting says
// whether another owner waits, looks counts the looks; with gate set, each
// look's read waits for one value sent on it (or its ctx).
type watchingStore struct {
	*store
	waiting atomic.Bool
	fail    atomic.Bool
	looks   atomic.Int32
	gate    chan struct{}
}

func (w *watchingStore) Waiting(ctx context.Context, _ held.Spec) (bool, error) {
	if w.gate != nil {
		select {
		case <-w.gate:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	w.looks.Add(1)
	if w.fail.Load() {
		return false, errors.New("watching store: cannot tell")
	}
	return w.waiting.Load(), nil
}

const (
	testRetain = time.Minute
	testWatch  = time.Second
)

// newRetainFixture is newFixture with Options.Retain testRetain, looking
// every testWatch.
func newRetainFixture(t *testing.T, bound int, k *TestingKnobs) (*fixture, *watchingStore) {
	t.Helper()
	clk := &clock.Local{}
	g, err := clock.NewGlobal(model.New(clk), "", clk)
	require.NoError(t, err)
	w := &watchingStore{store: newStore(g)}
	c, err := New(w, Options{Bound: bound, Clock: clk, Retain: testRetain, WatchEvery: testWatch, TestingKnobs: k})
	require.NoError(t, err)
	m, err := manager.NewLocker(c, manager.Config{Name: "test", Mode: lockstep.ModeNew, Clock: clk, Observer: lockstep.NopObserver{}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, m.Close(context.Background())) })
	return &fixture{s: w.store, c: c, m: m, g: g}, w
}

// lockUnlock takes id and unlocks it, returning the lock.
func (f *fixture) lockUnlock(t *testing.T, id string) lockstep.Lock {
	t.Helper()
	l, err := f.m.Lock(context.Background(), id)
	require.NoError(t, err)
	require.NoError(t, l.Unlock(context.Background()))
	synctest.Wait()
	return l
}

func TestRetain_ARelockInTheWindowIsGrantedInMemoryWithTheNextToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, _ := newRetainFixture(t, 4, nil)
		ctx := context.Background()
		a := f.lockUnlock(t, "x")
		takes, releases := f.s.counts()
		require.Equal(t, 1, takes)
		require.Zero(t, releases, "the unlocked hold is retained")
		b, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		require.Equal(t, a.Owner(), b.Owner(), "the retained store hold")
		require.Equal(t, token(t, a)+1, token(t, b))
		require.NoError(t, b.Unlock(ctx))
		time.Sleep(testRetain + time.Second)
		synctest.Wait()
		takes, releases = f.s.counts()
		require.Equal(t, 1, takes)
		require.Equal(t, 1, releases, "released when the window ended")
		require.Zero(t, f.lines())
	})
}

func TestRetain_ARemoteWaiterEndsTheRetentionWithinOneLook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, w := newRetainFixture(t, 4, nil)
		w.waiting.Store(true)
		f.lockUnlock(t, "x")
		_, releases := f.s.counts()
		require.Equal(t, 1, releases, "a waiter already in line: released after the first look, at once")
		w.waiting.Store(false)
		f.lockUnlock(t, "x")
		_, releases = f.s.counts()
		require.Equal(t, 1, releases)
		w.waiting.Store(true)
		time.Sleep(testWatch)
		synctest.Wait()
		_, releases = f.s.counts()
		require.Equal(t, 2, releases, "a waiter that came later: released at the next look")
		require.Zero(t, f.lines())
	})
}

func TestRetain_AFailedLookReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, w := newRetainFixture(t, 4, nil)
		w.fail.Store(true)
		f.lockUnlock(t, "x")
		_, releases := f.s.counts()
		require.Equal(t, 1, releases)
	})
}

func TestRetain_AnotherAccessReleasesAtOnceAndPassesThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, _ := newRetainFixture(t, 4, nil)
		ctx := context.Background()
		f.lockUnlock(t, "x")
		// The fake store has one slot per id: the shared Take would wait
		// for the window if the retained hold were not released first.
		start := time.Now()
		s, err := f.m.LockGroup(ctx, lockstep.Request{ID: "x", Access: lockstep.Shared})
		require.NoError(t, err)
		require.Zero(t, time.Since(start), "released at once, not after a look or the window")
		takes, releases := f.s.counts()
		require.Equal(t, 2, takes)
		require.Equal(t, 1, releases)
		require.NoError(t, s.Unlock(ctx))
		require.Zero(t, f.lines())
	})
}

func TestRetain_TryLockIsGrantedTheRetainedHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, _ := newRetainFixture(t, 4, nil)
		ctx := context.Background()
		a := f.lockUnlock(t, "x")
		b, err := f.m.TryLock(ctx, "x")
		require.NoError(t, err)
		require.Equal(t, a.Owner(), b.Owner())
		_, err = f.m.TryLock(ctx, "x")
		require.ErrorIs(t, err, lockstep.ErrLocked, "held in memory: a TryLock fails as before")
		require.NoError(t, b.Unlock(ctx))
	})
}

func TestRetain_TheBoundCountsRelocksAndEndsTheHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, _ := newRetainFixture(t, 2, nil)
		owners := []string{}
		for range 4 {
			owners = append(owners, f.lockUnlock(t, "x").Owner())
		}
		require.Equal(t, []string{owners[0], owners[0], owners[0]}, owners[:3], "the store acquisition and two grants in memory")
		require.NotEqual(t, owners[0], owners[3], "the bound reached: the hold was released and the id taken again")
		takes, releases := f.s.counts()
		require.Equal(t, 2, takes)
		require.Equal(t, 1, releases)
	})
}

func TestRetain_LossAndCloseRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, _ := newRetainFixture(t, 4, nil)
		f.lockUnlock(t, "x")
		f.s.losses[0].Fire()
		synctest.Wait()
		_, releases := f.s.counts()
		require.Equal(t, 1, releases, "a lost lease ends the retention")
		f.lockUnlock(t, "y")
		require.NoError(t, f.m.Close(context.Background()))
		_, releases = f.s.counts()
		require.Equal(t, 2, releases, "Close releases a retained hold")
		require.Zero(t, f.lines())
	})
}

func TestRetain_PlantedIgnoresWaitersKeepsTheHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, w := newRetainFixture(t, 4, &TestingKnobs{RetainIgnoresWaiters: true})
		w.waiting.Store(true)
		f.lockUnlock(t, "x")
		time.Sleep(2 * testRetain)
		synctest.Wait()
		_, releases := f.s.counts()
		require.Zero(t, releases, "the planted defect keeps the hold past the window with a waiter in line")
	})
}

// A re-lock that claims the retained hold while its first look is in
// flight does not call the look off: the look sees a waiter of another
// owner, and the re-lock's Unlock releases the hold in the store instead
// of retaining it again. The planted DropOvertakenLook retains it again
// (its next look still in flight): the waiter is passed once more.
func TestRetain_ALookOvertakenByARelockStillYields(t *testing.T) {
	for _, planted := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			f, w := newRetainFixture(t, 4, &TestingKnobs{DropOvertakenLook: planted})
			w.gate = make(chan struct{})
			w.waiting.Store(true)
			ctx := context.Background()
			a := f.lockUnlock(t, "x") // retained; its first look waits at the gate
			b, err := f.m.Lock(ctx, "x")
			require.NoError(t, err)
			require.Equal(t, a.Owner(), b.Owner(), "the re-lock took the retained hold before the look returned")
			w.gate <- struct{}{} // the first look returns: a waiter of another owner
			synctest.Wait()
			require.NoError(t, b.Unlock(ctx))
			synctest.Wait()
			_, releases := f.s.counts()
			if planted {
				require.Zero(t, releases, "planted: the overtaken look's outcome dropped, the hold retained again")
				return
			}
			require.Equal(t, 1, releases, "the re-lock's Unlock released the hold in the store")
			require.Equal(t, int32(1), w.looks.Load(), "one look, overtaken, and none after the release")
		})
	}
}

func TestNew_RefusesBadRetain(t *testing.T) {
	clk := &clock.Local{}
	w := &watchingStore{store: newStore(nil)}
	for _, c := range []struct {
		name  string
		inner manager.Algorithm
		o     Options
		field string
	}{
		{"negative", w, Options{Bound: 1, Clock: clk, Retain: -time.Second, WatchEvery: time.Second}, "Retain"},
		{"no watcher", newStore(nil), Options{Bound: 1, Clock: clk, Retain: time.Second, WatchEvery: time.Second}, "Retain"},
		{"no watch period", w, Options{Bound: 1, Clock: clk, Retain: time.Second}, "WatchEvery"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(c.inner, c.o)
			var ce *lockstep.ConfigError
			require.True(t, errors.As(err, &ce), "got %v", err)
			require.Equal(t, c.field, ce.Field)
		})
	}
}
