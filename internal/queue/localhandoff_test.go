package queue

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// TestQueueLock_LocalHandoffPassesTheLockInMemory: with LocalHandoff, a
// goroutine waiting for an id its Locker holds gets it at the holder's
// Unlock from the same store hold (the same owner cell), with a greater
// fencing token, and no request but the token's two; after the bound the
// lock is released in the store and taken afresh.
func TestQueueLock_LocalHandoffPassesTheLockInMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &clock.Local{}
		ms := model.New(clk)
		cs := &countingStore{Store: ms}
		g, err := clock.NewGlobal(ms, "", clk)
		require.NoError(t, err)
		l, err := New(cs, &Options{Clock: clk, ProcessID: "p", Fencing: g, LocalHandoff: 1})
		require.NoError(t, err)
		defer func() { require.NoError(t, l.Close(context.Background())) }()
		ctx := context.Background()
		a, err := l.Lock(ctx, "x")
		require.NoError(t, err)
		cell, err := g.Read(ctx)
		require.NoError(t, err)
		require.Equal(t, a.(lockstep.Fenced).Token()+1, cell, "the store acquisition reserved a block of LocalHandoff+1 tokens")
		type res struct {
			l   lockstep.Lock
			err error
		}
		next := func() <-chan res {
			ch := make(chan res, 1)
			go func() { lk, err := l.Lock(ctx, "x"); ch <- res{lk, err} }()
			synctest.Wait()
			return ch
		}
		bc := next()
		before := cs.n.Load()
		require.NoError(t, a.Unlock(ctx))
		b := <-bc
		require.NoError(t, b.err)
		require.Equal(t, int64(0), cs.n.Load()-before, "the global cell is on another store: no lock-table request")
		require.Equal(t, a.Owner(), b.l.Owner())
		require.Equal(t, a.(lockstep.Fenced).Token()+1, b.l.(lockstep.Fenced).Token(), "the block's next token")
		cc := next()
		require.NoError(t, b.l.Unlock(ctx))
		c := <-cc
		require.NoError(t, c.err)
		require.NotEqual(t, a.Owner(), c.l.Owner(), "bound 1: the second Unlock released in the store")
		require.Greater(t, c.l.(lockstep.Fenced).Token(), b.l.(lockstep.Fenced).Token())
		require.NoError(t, c.l.Unlock(ctx))
	})
}

func TestQueueLock_LocalHandoffRefusals(t *testing.T) {
	s := model.New(&clock.Local{})
	_, err := New(s, &Options{LocalHandoff: -1})
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	require.ErrorContains(t, err, "LocalHandoff")
	_, err = NewWith(s, &Options{LocalHandoff: 2}, settings(t, "p"), nil)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	require.ErrorContains(t, err, "migration Locker has Options.LocalHandoff")
}
