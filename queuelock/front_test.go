package queuelock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/queue"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The front's constants are the core's (the front spells them out for its
// documentation).
func TestFront_DefaultsAreTheCores(t *testing.T) {
	assert.Equal(t, queue.DefaultTable, queuelock.DefaultTable)
	assert.Equal(t, queue.DefaultMaxClockSkew, queuelock.DefaultMaxClockSkew)
}

// New refuses what the core refuses, and changes nothing.
func TestFront_NewRefusesBadInput(t *testing.T) {
	l, err := queuelock.New(nil, nil)
	assert.Nil(t, l)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "nil store")

	l, err = queuelock.New(model.New(&clock.Local{}), &queuelock.Options{Poll: -time.Second})
	assert.Nil(t, l)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "Poll")
}

// Every method of the front reaches the core: a lock taken, refused to a
// second Locker, shared with it, grouped, released, and the Lockers closed.
func TestFront_MethodsReachTheCore(t *testing.T) {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	newLocker := func(p string) *queuelock.Locker {
		l, err := queuelock.New(store, &queuelock.Options{ProcessID: p, TTL: 4 * time.Second})
		require.NoError(t, err)
		return l
	}
	a, b := newLocker("a"), newLocker("b")
	require.NoError(t, a.Ready(ctx))
	assert.True(t, a.Scope().IsGlobal())

	lk, err := a.Lock(ctx, "x")
	require.NoError(t, err)
	_, err = b.TryLock(ctx, "x")
	assert.True(t, errors.Is(err, lockstep.ErrLocked), "%v", err)

	tok, err := a.Share(lk)
	require.NoError(t, err)
	adopted, err := b.Adopt(ctx, tok)
	require.NoError(t, err)
	require.NoError(t, lk.Unlock(ctx))
	require.NoError(t, adopted.Unlock(ctx))

	g, err := a.LockGroup(ctx, lockstep.Request{ID: "x"}, lockstep.Request{ID: "y", Access: lockstep.Shared})
	require.NoError(t, err)
	_, err = b.TryLockGroup(ctx, lockstep.Request{ID: "y"})
	assert.True(t, errors.Is(err, lockstep.ErrLocked), "%v", err)
	require.NoError(t, g.Unlock(ctx))
	require.NoError(t, a.UnlockAll(ctx, "nobody"))

	require.NoError(t, a.Close(ctx))
	require.NoError(t, b.Close(ctx))
	_, err = a.Lock(ctx, "z")
	assert.True(t, errors.Is(err, lockstep.ErrClosed), "%v", err)
}
