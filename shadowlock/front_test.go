package shadowlock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/shadow"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// The front's constants are the core's (the front spells them out for its
// documentation).
func TestFront_DefaultsAreTheCores(t *testing.T) {
	assert.Equal(t, shadow.DefaultMainTable, shadowlock.DefaultMainTable)
	assert.Equal(t, shadow.DefaultShadowTable, shadowlock.DefaultShadowTable)
}

// New refuses what the core refuses, and changes nothing.
func TestFront_NewRefusesBadInput(t *testing.T) {
	l, err := shadowlock.New(nil, nil)
	assert.Nil(t, l)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "nil store")

	l, err = shadowlock.New(model.New(&clock.Local{}), &shadowlock.Options{MainTable: "t", ShadowTable: "t"})
	assert.Nil(t, l)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "ShadowTable")
}

// Every method of the front reaches the core: a lock taken, refused to a
// second Locker, grouped, released, and the Lockers closed.
func TestFront_MethodsReachTheCore(t *testing.T) {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	newLocker := func(p string) *shadowlock.Locker {
		l, err := shadowlock.New(store, &shadowlock.Options{ProcessID: p, TTL: 4 * time.Second})
		require.NoError(t, err)
		return l
	}
	a, b := newLocker("a"), newLocker("b")
	require.NoError(t, a.Ready(ctx))

	lk, err := a.Lock(ctx, "x")
	require.NoError(t, err)
	_, err = b.TryLock(ctx, "x")
	assert.True(t, errors.Is(err, lockstep.ErrLocked), "%v", err)
	require.NoError(t, lk.Unlock(ctx))

	g, err := a.LockGroup(ctx, lockstep.Request{ID: "x"}, lockstep.Request{ID: "y"})
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
