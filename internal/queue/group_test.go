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

func newHierLocker(t *testing.T, s lockstep.Store) *testLocker {
	t.Helper()
	l, err := New(s, &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, Separator: "/"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// With a separator, a lock of "a/b" conflicts with its ancestor and its
// descendants, not with its sibling, and its ancestor's intention lock is
// part of the one handle.
func TestGroup_HierarchyConflictsWithAncestorsAndDescendantsOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		a, b := newHierLocker(t, s), newHierLocker(t, s)
		lk, err := a.Lock(ctx, "a/b")
		require.NoError(t, err)
		require.Equal(t, "a/b", lk.ID())
		require.Equal(t, []lockstep.Request{{ID: "a", Access: lockstep.IntentExclusive}, {ID: "a/b"}}, lk.(lockstep.Grouped).Members())

		for _, busy := range []lockstep.Request{{ID: "a"}, {ID: "a", Access: lockstep.Shared}, {ID: "a/b", Access: lockstep.Shared}, {ID: "a/b/c", Access: lockstep.IntentShared}} {
			_, err := b.TryLockGroup(ctx, busy)
			require.ErrorIs(t, err, lockstep.ErrLocked, "%v", busy)
		}
		sib, err := b.TryLock(ctx, "a/c")
		require.NoError(t, err, "a sibling must not conflict")
		require.NoError(t, sib.Unlock(ctx))
		require.NoError(t, lk.Unlock(ctx))
		for _, id := range []string{"a", "a/b", "a/c"} {
			require.Empty(t, cells(t, s, id), id)
		}
		top, err := b.TryLock(ctx, "a")
		require.NoError(t, err)
		require.NoError(t, top.Unlock(ctx))
	})
}

// A flat Locker's Lock is the algorithm's own lock (no group around it),
// and so is a group of one request; bad groups change nothing.
func TestGroup_FlatLockIsUnwrappedAndBadInputChangesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		l := newLocker(t, s, nil)
		lk, err := l.Lock(ctx, "k")
		require.NoError(t, err)
		_, grouped := lk.(lockstep.Grouped)
		require.False(t, grouped)
		require.NoError(t, lk.Unlock(ctx))
		one, err := l.LockGroup(ctx, lockstep.Request{ID: "k", Access: lockstep.Shared})
		require.NoError(t, err)
		_, grouped = one.(lockstep.Grouped)
		require.False(t, grouped)
		require.NoError(t, one.Unlock(ctx))

		_, err = l.LockGroup(ctx)
		require.Error(t, err)
		_, err = l.LockGroup(ctx, lockstep.Request{ID: "x"}, lockstep.Request{ID: "y", Access: 9})
		require.ErrorIs(t, err, lockstep.ErrInvalidAccess)
		_, err = l.LockGroup(ctx, lockstep.Request{ID: ""})
		require.ErrorIs(t, err, lockstep.ErrInvalidID)
		require.Empty(t, cells(t, s, "x"))
		_, err = New(s, &Options{Separator: "\x00"})
		require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	})
}

// A group is one handle: the members are held together and released
// together, and two groups asking for the same ids in opposite orders both
// complete (canonical order).
func TestGroup_OppositeOrdersComplete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		a, b := newLocker(t, s, nil), newLocker(t, s, nil)
		done := make(chan error, 2*20)
		for i := range 20 {
			for _, l := range []*testLocker{a, b} {
				reqs := []lockstep.Request{{ID: "x"}, {ID: "y"}}
				if (i%2 == 0) == (l == a) {
					reqs[0], reqs[1] = reqs[1], reqs[0]
				}
				go func() {
					lk, err := l.LockGroup(ctx, reqs...)
					if err == nil {
						time.Sleep(time.Millisecond)
						err = lk.Unlock(ctx)
					}
					done <- err
				}()
			}
		}
		for range 40 {
			require.NoError(t, <-done)
		}
		require.Empty(t, cells(t, s, "x"))
		require.Empty(t, cells(t, s, "y"))
	})
}
