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
// them and nothing of another holder's; the handles' own Unlock then
// returns nil, and a nil holder is refused.
func unlockAll(t *testing.T, env Env) {
	base, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	l, other := newLocker(t, env, s, "/"), newLocker(t, env, s, "/")
	ua, ok := l.(lockstep.UnlockAller)
	require.True(t, ok, "%T is not a lockstep.UnlockAller", l)
	type job struct{ name string }
	h, h2 := &job{"unit"}, &job{"another unit"}
	ctx, ctx2 := lockstep.WithReentrancy(base, h), lockstep.WithReentrancy(base, h2)

	var handles []lockstep.Lock
	take := func(l lockstep.Lock, err error) {
		t.Helper()
		require.NoError(t, err)
		handles = append(handles, l)
	}
	take(l.Lock(ctx, "u/a"))
	take(l.Lock(ctx, "u/a"))
	take(l.LockGroup(ctx, lockstep.Request{ID: "u/b", Access: lockstep.Shared}, lockstep.Request{ID: "v"}))
	kept, err := l.Lock(ctx2, "w")
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
	require.NoError(t, ua.UnlockAll(base, h))
	for _, id := range []string{"u/a", "u/b", "v", "u"} {
		free(id)
	}
	busy("w") // another holder's lock stays held
	for i, hd := range handles {
		require.NoError(t, hd.Unlock(base), "handle %d's Unlock after UnlockAll", i)
	}
	require.NoError(t, ua.UnlockAll(base, h), "a second UnlockAll finds nothing")
	require.ErrorIs(t, ua.UnlockAll(base, nil), lockstep.ErrInvalidConfig)
	require.NoError(t, kept.Unlock(ctx2))
	free("w")
}
