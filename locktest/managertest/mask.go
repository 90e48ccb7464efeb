package managertest

import (
	"context"
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
