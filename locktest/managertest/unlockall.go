package managertest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// unlockAll is seed 003's unlockAll: a holder takes hierarchical ids by
// Lock (one of them twice) and by a group; UnlockAll releases every one of
// them and nothing of another unit's; the handles' own Unlock then
// returns nil.
func unlockAll(t *testing.T, env Env) {
	base, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	l, other := newLocker(t, env, s, "/"), newLocker(t, env, s, "/")
	u, u2 := unitOf(t, l, "unit"), unitOf(t, l, "another unit")

	var handles []lockstep.Lock
	take := func(l lockstep.Lock, err error) {
		t.Helper()
		require.NoError(t, err)
		handles = append(handles, l)
	}
	take(u.Lock(base, "u/a"))
	take(u.Lock(base, "u/a"))
	take(u.LockGroup(base, lockstep.Request{ID: "u/b", Access: lockstep.Shared}, lockstep.Request{ID: "v"}))
	kept, err := u2.Lock(base, "w")
	require.NoError(t, err)

	busy := func(id string) {
		t.Helper()
		_, err := other.TryLock(base, id)
		require.ErrorIs(t, err, lockstep.ErrLocked, "%s while held", id)
	}
	free := func(id string) {
		t.Helper()
		o, err := other.TryLock(base, id)
		require.NoError(t, err, "%s after UnlockAll", id)
		require.NoError(t, o.Unlock(base))
	}
	for _, id := range []string{"u/a", "v", "u", "w"} {
		busy(id)
	}
	require.NoError(t, u.UnlockAll(base))
	for _, id := range []string{"u/a", "u/b", "v", "u"} {
		free(id)
	}
	busy("w") // another holder's lock stays held
	for i, hd := range handles {
		require.NoError(t, hd.Unlock(base), "handle %d's Unlock after UnlockAll", i)
	}
	require.NoError(t, u.UnlockAll(base), "a second UnlockAll finds nothing")
	require.NoError(t, kept.Unlock(base))
	free("w")
}

// unitOf returns a new unit of work of l, whose deadlock reports show
// comment; l must be a lockstep.UnitLocker, as every Locker of this module
// is.
func unitOf(t *testing.T, l lockstep.GroupLocker, comment string) lockstep.Unit {
	t.Helper()
	ul, ok := l.(lockstep.UnitLocker)
	require.True(t, ok, "%T is not a lockstep.UnitLocker", l)
	return ul.Unit(comment)
}
