package migration

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// Groups and hierarchy in each mode: hierarchy holds in all three; siblings
// share an ancestor only in mode new, where the intention locks are queue
// accesses — in modes legacy and combined every member's legacy lock is
// exclusive. Reentrancy under one holder counts in every mode.
func TestLocker_GroupsAndHierarchyInEveryMode(t *testing.T) {
	for _, m := range []lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeCombined, lockstep.ModeNew} {
		t.Run(m.String(), func(t *testing.T) {
			ctx := context.Background()
			store := newStore()
			setPhase(t, newController(t, store, 0), lockstep.ModeCombined)
			if m == lockstep.ModeNew {
				setPhase(t, newController(t, store, 0), lockstep.ModeNew)
			}
			if m == lockstep.ModeLegacy {
				setPhase(t, newController(t, store, 0), lockstep.ModeLegacy)
			}
			open := func(process string) *Locker {
				o := withIdentity(testOptions(uint64(len(process))), nil, process)
				o.Separator = "/"
				l, err := New(store, flagOf(m), o)
				require.NoError(t, err)
				t.Cleanup(func() { _ = l.Close(context.Background()) })
				return l
			}
			p1, p2 := open("p1"), open("p2")

			lk, err := p1.Lock(ctx, "a/b")
			require.NoError(t, err)
			require.Equal(t, m, lk.Mode())
			_, err = p2.TryLockGroup(ctx, lockstep.Request{ID: "a", Access: lockstep.Shared})
			require.ErrorIs(t, err, lockstep.ErrLocked, "the ancestor must be busy")
			_, err = p2.TryLock(ctx, "a/b/c")
			require.ErrorIs(t, err, lockstep.ErrLocked, "the descendant must be busy")
			sib, err := p2.TryLock(ctx, "a/c")
			if m == lockstep.ModeNew {
				require.NoError(t, err, "siblings share the ancestor's intention lock")
				require.NoError(t, sib.Unlock(ctx))
			} else {
				require.ErrorIs(t, err, lockstep.ErrLocked, "the legacy lock of the ancestor is exclusive")
			}

			job := p1.Unit("job-1")
			r1, err := job.Lock(ctx, "x")
			require.NoError(t, err)
			r2, err := job.Lock(ctx, "x")
			require.NoError(t, err, "the same holder takes it again")
			require.NoError(t, r2.Unlock(ctx))
			_, err = p2.TryLock(ctx, "x")
			require.ErrorIs(t, err, lockstep.ErrLocked, "still held once")
			require.NoError(t, r1.Unlock(ctx))
			free, err := p2.TryLock(ctx, "x")
			require.NoError(t, err)
			require.NoError(t, free.Unlock(ctx))
			require.NoError(t, lk.Unlock(ctx))
		})
	}
}
