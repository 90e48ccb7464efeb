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

// reentrantReported is seed 003's ALREADY_LOCKED: a unit's Lock tells
// (lockstep.IsReentrant) whether it only counted. The first take of an id,
// flat or hierarchical, took something; a second take by the same unit in
// a covered access only counted; a sibling's first take shares the
// parent's intention lock but takes its own id, so it took something; a
// Lock outside any unit never only counts.
func reentrantReported(t *testing.T, env Env) {
	base, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	l := newLocker(t, env, s, "/")
	u := unitOf(t, l, "already locked")

	var held []lockstep.Lock
	take := func(want bool, what string, reqs ...lockstep.Request) {
		t.Helper()
		h, err := u.LockGroup(base, reqs...)
		require.NoError(t, err, what)
		_, ok := h.(lockstep.Reentrant)
		require.True(t, ok, "%s: a unit's Lock %T implements lockstep.Reentrant", what, h)
		require.Equal(t, want, lockstep.IsReentrant(h), what)
		held = append(held, h)
	}
	x := func(id string) lockstep.Request { return lockstep.Request{ID: id} }
	take(false, "first take of rx", x("rx"))
	take(true, "rx again", x("rx"))
	take(true, "rx Shared, covered by its Exclusive", lockstep.Request{ID: "rx", Access: lockstep.Shared})
	take(false, "first take of dir/a", x("dir/a"))
	take(true, "dir/a again", x("dir/a"))
	take(false, "dir/b: shares the IX on dir, takes dir/b", x("dir/b"))
	take(true, "a group of held ids", x("dir/b"), x("rx"), x("dir/a"))
	h, err := u.Lock(base, "dir/a")
	require.NoError(t, err)
	require.True(t, lockstep.IsReentrant(h), "Lock, as LockGroup")
	held = append(held, h)
	for i := len(held) - 1; i >= 0; i-- {
		require.NoError(t, held[i].Unlock(base))
	}
	h, err = u.Lock(base, "rx")
	require.NoError(t, err)
	require.False(t, lockstep.IsReentrant(h), "rx after the balancing release: taken afresh")
	require.NoError(t, h.Unlock(base))

	outside, err := l.Lock(base, "rx")
	require.NoError(t, err)
	require.False(t, lockstep.IsReentrant(outside), "a Lock outside any unit")
	require.NoError(t, outside.Unlock(base))
}
