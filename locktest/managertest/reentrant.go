package managertest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// reentrant is seed scenario 3: one holder takes an id twice Exclusive and
// releases it twice, then twice Shared and releases twice, without error
// and without waiting for itself. The id stays held until the balancing
// release and is free right after it.
func reentrant(t *testing.T, env Env) {
	// A Lock that waited for its own holder would wait out this deadline
	// and fail instead of hanging the test.
	base, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	l, other := newLocker(t, env, s, ""), newLocker(t, env, s, "")
	u := unitOf(t, l, "scenario 3")

	busy := func(msg string) {
		t.Helper()
		_, err := other.TryLock(base, "rec")
		require.ErrorIs(t, err, lockstep.ErrLocked, msg)
	}
	free := func(msg string) {
		t.Helper()
		h, err := other.TryLock(base, "rec")
		require.NoError(t, err, msg)
		require.NoError(t, h.Unlock(base))
	}

	x1, err := u.Lock(base, "rec")
	require.NoError(t, err, "first Exclusive")
	x2, err := u.Lock(base, "rec")
	require.NoError(t, err, "second Exclusive by the same holder")
	busy("TryLock by another Locker while held twice")
	require.NoError(t, x2.Unlock(base), "first release")
	busy("TryLock by another Locker while held once more")
	require.NoError(t, x1.Unlock(base), "second release")
	free("TryLock by another Locker after both releases")

	shared := lockstep.Request{ID: "rec", Access: lockstep.Shared}
	s1, err := u.LockGroup(base, shared)
	require.NoError(t, err, "first Shared")
	s2, err := u.LockGroup(base, shared)
	require.NoError(t, err, "second Shared by the same holder")
	_, err = u.Lock(base, "rec")
	require.ErrorIs(t, err, lockstep.ErrUpgrade, "Exclusive asked by a holder of Shared")
	busy("Exclusive TryLock by another Locker while Shared is held twice")
	require.NoError(t, s1.Unlock(base), "first release of Shared")
	busy("Exclusive TryLock by another Locker while Shared is held once more")
	require.NoError(t, s2.Unlock(base), "second release of Shared")
	free("TryLock by another Locker after both Shared releases")

	// Unlock stays idempotent: a second Unlock of a released handle changes
	// nothing, not even the count of a later acquisition.
	x3, err := u.Lock(base, "rec")
	require.NoError(t, err, "Exclusive again")
	x4, err := u.Lock(base, "rec")
	require.NoError(t, err, "and again")
	require.NoError(t, x4.Unlock(base))
	require.NoError(t, x4.Unlock(base), "a repeated Unlock")
	busy("TryLock by another Locker after one release and one repeat of it")
	require.NoError(t, x3.Unlock(base))
	free("TryLock by another Locker after the balancing release")
}

// reentrantHierarchy is scenario 3 on hierarchical ids: a holder of
// "dir/a" also takes "dir/b" and "dir/a" again; every intention lock on
// "dir" is counted, and "dir" is free for another Locker's Exclusive only
// when the last of them is released.
func reentrantHierarchy(t *testing.T, env Env) {
	base, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	l, other := newLocker(t, env, s, "/"), newLocker(t, env, s, "/")
	u := unitOf(t, l, "hierarchy")

	a1, err := u.Lock(base, "dir/a")
	require.NoError(t, err)
	b, err := u.Lock(base, "dir/b")
	require.NoError(t, err, "a sibling under the same holder")
	a2, err := u.Lock(base, "dir/a")
	require.NoError(t, err, "dir/a again")
	for _, h := range []lockstep.Lock{a2, a1, b} {
		_, err = other.TryLock(base, "dir")
		require.ErrorIs(t, err, lockstep.ErrLocked, "Exclusive on dir while something below it is held")
		require.NoError(t, h.Unlock(base))
	}
	h, err := other.TryLock(base, "dir")
	require.NoError(t, err, "Exclusive on dir after every release below it")
	require.NoError(t, h.Unlock(base))
}
