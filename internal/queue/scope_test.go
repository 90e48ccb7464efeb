package queue

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// scoped is a store of one scope over a shared model store, as two
// cassandra.Stores built WithLocalDC("dc1") and ("dc2") share one cluster.
type scoped struct {
	lockstep.Store
	scope lockstep.Scope
}

func (s scoped) Scope() lockstep.Scope { return s.scope }

func TestQueueLock_DCLocalLocksOfOneIDAreOnePerDCAndApartFromTheGlobalOne(t *testing.T) {
	ctx := t.Context()
	shared := model.New(&clock.Local{})
	newLocker := func(st lockstep.Store, name string) *testLocker {
		l, err := New(st, &Options{ProcessID: name, TTL: 4 * time.Second})
		require.NoError(t, err)
		t.Cleanup(func() { _ = l.Close(context.Background()) })
		return l
	}
	dc1 := newLocker(scoped{shared, lockstep.LocalTo("dc1")}, "a")
	dc1b := newLocker(scoped{shared, lockstep.LocalTo("dc1")}, "b")
	dc2 := newLocker(scoped{shared, lockstep.LocalTo("dc2")}, "c")
	global := newLocker(shared, "d")
	assert.Equal(t, lockstep.LocalTo("dc1"), dc1.Scope())
	assert.True(t, global.Scope().IsGlobal())

	var held []lockstep.Lock
	for _, l := range []*testLocker{dc1, dc2, global} {
		h, err := l.TryLock(ctx, "x")
		require.NoError(t, err, "%v", l.Scope())
		assert.Equal(t, "x", h.ID(), "the handle names the caller's id")
		held = append(held, h)
	}
	_, err := dc1b.TryLock(ctx, "x")
	assert.ErrorIs(t, err, lockstep.ErrLocked, "a second process of dc1")
	for _, row := range []string{"\x00dc1\x00x", "\x00dc2\x00x", "x"} {
		cells, err := shared.Read(ctx, DefaultTable, row, lockstep.Slice{})
		require.NoError(t, err)
		assert.NotEmpty(t, cells, "row %q", row)
	}
	for _, h := range held {
		require.NoError(t, h.Unlock(ctx))
	}
	h, err := dc1b.TryLock(ctx, "x")
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))
}

func TestNew_RefusesAStoreOfAnInvalidDC(t *testing.T) {
	_, err := New(scoped{model.New(&clock.Local{}), lockstep.LocalTo("")}, nil)
	require.True(t, errors.Is(err, lockstep.ErrInvalidConfig), "%v", err)
}
