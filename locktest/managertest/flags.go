package managertest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// flags is seed 003's per-query HIERARCHY and MASK on one Locker with
// Separator "/" (lockstep.Flags, docs/algorithms.md section 8.9): a Flat
// query of a root id and a hierarchical query below it exclude each other
// across Lockers, because both are planned under the Locker's one reading;
// a Flat query of the mask of one name ("doc/*") is taken as "doc"; a Flat
// query naming a path and a NoMask query naming a mask are refused
// with ErrInvalidID, having taken nothing.
func flags(t *testing.T, env Env) {
	base, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	l, other := newLocker(t, env, s, "/"), newLocker(t, env, s, "/")
	flat := lockstep.Request{ID: "doc", Flags: lockstep.Flat | lockstep.NoMask}

	root, err := l.LockGroup(base, flat)
	require.NoError(t, err, "a flat query of a root id")
	_, err = other.TryLock(base, "doc/page")
	require.ErrorIs(t, err, lockstep.ErrLocked, "a hierarchical query below the flat holder")
	require.NoError(t, root.Unlock(base))

	page, err := other.Lock(base, "doc/page")
	require.NoError(t, err)
	_, err = l.TryLockGroup(base, flat)
	require.ErrorIs(t, err, lockstep.ErrLocked, "a flat query of the root while a child is held")
	require.NoError(t, page.Unlock(base))

	mask, err := l.LockGroup(base, lockstep.Request{ID: "doc/*", Flags: lockstep.Flat})
	require.NoError(t, err, "a flat query of the mask of one name: no ancestors")
	_, err = other.TryLock(base, "doc/page")
	require.ErrorIs(t, err, lockstep.ErrLocked, "a child of the flat mask")
	require.NoError(t, mask.Unlock(base))

	for _, r := range []lockstep.Request{
		{ID: "doc/page", Flags: lockstep.Flat},
		{ID: "doc/page/*", Flags: lockstep.Flat},
		{ID: "doc/*", Access: lockstep.Shared, Flags: lockstep.NoMask},
	} {
		_, err := l.LockGroup(base, r)
		require.ErrorIs(t, err, lockstep.ErrInvalidID, "%v", r)
	}
	all, err := other.TryLock(base, "doc/*")
	require.NoError(t, err, "the refusals took nothing")
	require.NoError(t, all.Unlock(base))
}
