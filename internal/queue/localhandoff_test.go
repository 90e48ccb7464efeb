package queue

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/setup"
	"github.com/lockstep-go/lockstep/model"
)

// TestQueueLock_LocalHandoffPassesTheLockInMemory: with LocalHandoff, a
// goroutine waiting for an id its Locker holds gets it at the holder's
// Unlock from the same store hold (the same owner cell), with a greater
// fencing token, and no request but the token's two; at the bound, with
// no other owner waiting in the store, one look (a read) and a fresh block
// drawn from the global cell extend the hold.
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
		before := cs.n.Load()
		b := handOn(t, l, a)
		synctest.Wait()
		require.Equal(t, int64(1), cs.n.Load()-before,
			"bound 1: handing b sends the block's look ahead, one read of the partition (the global cell is on another store)")
		require.Equal(t, a.Owner(), b.Owner())
		require.Equal(t, a.(lockstep.Fenced).Token()+1, b.(lockstep.Fenced).Token(), "the block's next token")
		before = cs.n.Load()
		c := handOn(t, l, b)
		require.Equal(t, int64(0), cs.n.Load()-before, "at the bound the look's answer is there: no lock-table request")
		require.Equal(t, a.Owner(), c.Owner(), "nobody else waits: the store hold is extended")
		require.Greater(t, c.(lockstep.Fenced).Token(), b.(lockstep.Fenced).Token())
		cell, err = g.Read(ctx)
		require.NoError(t, err)
		require.Equal(t, c.(lockstep.Fenced).Token()+1, cell, "the extension reserved a fresh block of LocalHandoff+1")
		require.NoError(t, c.Unlock(ctx))
	})
}

// TestQueueLock_LocalHandoffYieldsAtTheBoundToAnotherLockersWaiter: a
// store hold extended past its bound is released at its next bound once
// another Locker waits for the id, which gets it before the local waiter;
// that one takes the id from the store afterwards with a token above
// every token of the extended block.
func TestQueueLock_LocalHandoffYieldsAtTheBoundToAnotherLockersWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &clock.Local{}
		ms := model.New(clk)
		g, err := clock.NewGlobal(ms, "", clk)
		require.NoError(t, err)
		l, err := New(ms, &Options{Clock: clk, ProcessID: "p", Fencing: g, LocalHandoff: 1})
		require.NoError(t, err)
		defer func() { require.NoError(t, l.Close(context.Background())) }()
		other, err := New(ms, &Options{Clock: clk, ProcessID: "q", Fencing: g})
		require.NoError(t, err)
		defer func() { require.NoError(t, other.Close(context.Background())) }()
		ctx := context.Background()
		a, err := l.Lock(ctx, "x")
		require.NoError(t, err)
		c := handOn(t, l, handOn(t, l, a)) // extended at the bound
		require.Equal(t, a.Owner(), c.Owner())
		qc := lockAsync(ctx, other, "x")
		d := handOn(t, l, c) // within the fresh block
		require.Equal(t, a.Owner(), d.Owner())
		ec := lockAsync(ctx, l, "x")
		require.NoError(t, d.Unlock(ctx)) // at the bound: the look sees q's queue cell
		q := <-qc
		require.NoError(t, q.err)
		require.Greater(t, q.l.(lockstep.Fenced).Token(), d.(lockstep.Fenced).Token())
		select {
		case e := <-ec:
			t.Fatalf("the local waiter got %v while the other Locker holds the id", e)
		default:
		}
		require.NoError(t, q.l.Unlock(ctx))
		e := <-ec
		require.NoError(t, e.err)
		require.NotEqual(t, a.Owner(), e.l.Owner(), "taken from the store afresh")
		require.Greater(t, e.l.(lockstep.Fenced).Token(), q.l.(lockstep.Fenced).Token())
		require.NoError(t, e.l.Unlock(ctx))
	})
}

// TestQueueLock_ExtendKeepsNoBlockDrawnAfterTheLeaseClosed: Extend draws
// a fresh block but returns fencing.ErrLapsed when the hold's lease was
// not open as the draw returned; without fencing it draws nothing.
func TestQueueLock_ExtendKeepsNoBlockDrawnAfterTheLeaseClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &clock.Local{}
		ms := model.New(clk)
		g, err := clock.NewGlobal(ms, "", clk)
		require.NoError(t, err)
		l, err := newCore(ms, &Options{Clock: clk}, fenced(t, "p", g), nil)
		require.NoError(t, err)
		defer func() { require.NoError(t, l.Close(context.Background())) }()
		ctx := context.Background()
		open := held.NewLoss()
		first, err := l.Extend(ctx, held.Spec{ID: "x", Loss: open}, 3)
		require.NoError(t, err)
		cell, err := g.Read(ctx)
		require.NoError(t, err)
		require.Equal(t, first+2, cell, "a block of 3 reserved")
		closed := held.NewLoss()
		closed.Watch(func() time.Duration { return 0 }) // the deadline passed; nobody fired it
		_, err = l.Extend(ctx, held.Spec{ID: "x", Loss: closed}, 3)
		require.ErrorIs(t, err, fencing.ErrLapsed)
		require.ErrorIs(t, err, lockstep.ErrLost)
		unfenced, err := newCore(ms, &Options{Clock: clk}, settings(t, "r"), nil)
		require.NoError(t, err)
		defer func() { require.NoError(t, unfenced.Close(context.Background())) }()
		_, err = unfenced.Extend(ctx, held.Spec{ID: "x", Loss: open}, 3)
		require.ErrorIs(t, err, errNoFencing)
		after, err := g.Read(ctx)
		require.NoError(t, err)
		require.Greater(t, after, cell, "the lapsed draw wrote its block, which nobody holds")
	})
}

// lockAsync starts l.Lock(id) and returns its outcome's channel once the
// call waits.
func lockAsync(ctx context.Context, l lockstep.Locker, id string) <-chan lockResult {
	ch := make(chan lockResult, 1)
	go func() { lk, err := l.Lock(ctx, id); ch <- lockResult{lk, err} }()
	synctest.Wait()
	return ch
}

// handOn unlocks cur with a Lock of its id on l waiting and returns what
// that Lock got.
func handOn(t *testing.T, l lockstep.Locker, cur lockstep.Lock) lockstep.Lock {
	t.Helper()
	ctx := context.Background()
	ch := lockAsync(ctx, l, cur.ID())
	require.NoError(t, cur.Unlock(ctx))
	r := <-ch
	require.NoError(t, r.err)
	return r.l
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

// fenced is settings with fencing tokens from g.
func fenced(t *testing.T, id string, g *clock.Global) setup.Process {
	p, err := setup.Process{ID: id, Fencing: g}.Resolve()
	require.NoError(t, err)
	return p
}
