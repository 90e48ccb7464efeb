package managertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// mask is seed 003's MASK query: under Separator "/", "dir/*" names every
// child of dir. Held Exclusive, it excludes a child, a grandchild, a child
// no one had named before, and dir itself; an unrelated id stays free;
// after its release every child is free again. Held Shared by two Lockers
// at once, it shares (unless the Locker takes every access exclusively).
func mask(t *testing.T, env Env) {
	base, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	l, other := newLocker(t, env, s, "/"), newLocker(t, env, s, "/")
	all, err := l.Lock(base, "dir/*")
	require.NoError(t, err)
	for _, id := range []string{"dir/f", "dir/sub/g", "dir/new", "dir"} {
		_, err := other.TryLock(base, id)
		require.ErrorIs(t, err, lockstep.ErrLocked, "%s while dir/* is held", id)
	}
	o, err := other.TryLock(base, "elsewhere/f")
	require.NoError(t, err, "an id outside the mask")
	require.NoError(t, o.Unlock(base))
	require.NoError(t, all.Unlock(base))
	o, err = other.TryLock(base, "dir/f")
	require.NoError(t, err, "a child after the mask's release")
	require.NoError(t, o.Unlock(base))

	shared := lockstep.Request{ID: "dir/*", Access: lockstep.Shared}
	r1, err := l.LockGroup(base, shared)
	require.NoError(t, err)
	r2, err := other.TryLockGroup(base, shared)
	if env.ExclusiveOnly {
		require.ErrorIs(t, err, lockstep.ErrLocked, "every access is exclusive here")
	} else {
		require.NoError(t, err, "two readers of one mask")
		_, err = other.TryLock(base, "dir/f")
		require.ErrorIs(t, err, lockstep.ErrLocked, "a writer of a child beside a reader of the mask")
		require.NoError(t, r2.Unlock(base))
	}
	require.NoError(t, r1.Unlock(base))
}

// maskPairs takes, for every access of a mask "dir/*" and every access of
// its child "dir/f", the two on two Lockers, in either order: a mask in IS,
// IX or SIX is refused with ErrInvalidID and leaves nothing held; in S or X
// the second is refused with ErrLocked exactly when the two accesses are
// incompatible (for a Locker that takes every access exclusively, always),
// as the mask names the child. A grandchild "dir/f/g" in X is refused
// beside a mask in S, whose access covers the child's subtree.
func maskPairs(t *testing.T, env Env) {
	base, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	l, other := newLocker(t, env, s, "/"), newLocker(t, env, s, "/")
	accesses := []lockstep.Access{lockstep.Exclusive, lockstep.Shared, lockstep.IntentShared,
		lockstep.IntentExclusive, lockstep.SharedIntentExclusive}
	for _, ma := range accesses {
		mask := lockstep.Request{ID: "dir/*", Access: ma}
		for _, ca := range accesses {
			child := lockstep.Request{ID: "dir/f", Access: ca}
			for _, maskFirst := range []bool{true, false} {
				first, second := mask, child
				fl, sl := l, other
				if !maskFirst {
					first, second = child, mask
					fl, sl = other, l
				}
				what := fmt.Sprintf("%v then %v", first, second)
				if ma != lockstep.Shared && ma != lockstep.Exclusive {
					_, err := l.TryLockGroup(base, mask)
					require.ErrorIs(t, err, lockstep.ErrInvalidID, "%v: a mask in an intention access", mask)
					require.ErrorContains(t, err, "Shared or Exclusive", "%v: the refusal says which accesses a mask may take", mask)
					c, err := other.TryLockGroup(base, lockstep.Request{ID: "dir/f", Access: lockstep.Exclusive})
					require.NoError(t, err, "%v: the refused mask left nothing held", mask)
					require.NoError(t, c.Unlock(base))
					continue
				}
				h1, err := fl.TryLockGroup(base, first)
				require.NoError(t, err, what)
				h2, err := sl.TryLockGroup(base, second)
				if !ma.Compatible(ca) || env.ExclusiveOnly {
					require.ErrorIs(t, err, lockstep.ErrLocked, "%s: incompatible, the mask names the child", what)
				} else {
					require.NoError(t, err, "%s: compatible", what)
					require.NoError(t, h2.Unlock(base))
				}
				require.NoError(t, h1.Unlock(base))
			}
		}
	}
	m, err := l.TryLockGroup(base, lockstep.Request{ID: "dir/*", Access: lockstep.Shared})
	require.NoError(t, err)
	_, err = other.TryLockGroup(base, lockstep.Request{ID: "dir/f/g", Access: lockstep.Exclusive})
	require.ErrorIs(t, err, lockstep.ErrLocked, "a grandchild's writer beside a reader of the mask")
	require.NoError(t, m.Unlock(base))
}
