package queue

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/cohort"
	"github.com/lockstep-go/lockstep/model"
)

// lockResult is what a Lock run on a goroutine of its own returned.
type lockResult struct {
	l   lockstep.Lock
	err error
}

// lockLater starts l.Lock(id) on a goroutine and returns once it waits.
func lockLater(ctx context.Context, l *testLocker, id string) <-chan lockResult {
	ch := make(chan lockResult, 1)
	go func() { lk, err := l.Lock(ctx, id); ch <- lockResult{lk, err} }()
	synctest.Wait()
	return ch
}

func tokenOf(l lockstep.Lock) int64 { return l.(lockstep.Fenced).Token() }

// shareOfAGrant runs the handover of a lock granted in memory (local
// handoff, with retention on) to another Locker while a goroutine of the
// giver waits behind it, with k planted in the giver's layer, and returns
// what went wrong: the adopter must show the grant's own token, the
// waiter must not be handed the id in memory while the adopter holds it,
// and must get it from the store once the adopter leaves, with a token
// above the store hold's whole block.
func shareOfAGrant(t *testing.T, k *cohort.TestingKnobs) error {
	var failure error
	synctest.Test(t, func(t *testing.T) {
		clk := &clock.Local{}
		s := model.New(clk)
		g, err := clock.NewGlobal(s, "", clk)
		require.NoError(t, err)
		const step = 3 * time.Second // three of them outlast the default TTL
		giver, err := New(s, &Options{Clock: clk, ProcessID: "p", Fencing: g, LocalHandoff: 2, Retain: time.Minute,
			Poll: 10 * time.Millisecond, TestingKnobs: &TestingKnobs{Cohort: k}})
		require.NoError(t, err)
		defer func() { require.NoError(t, giver.Close(context.Background())) }()
		receiver, err := New(s, &Options{Clock: clk, ProcessID: "q", Fencing: g, Poll: 10 * time.Millisecond})
		require.NoError(t, err)
		defer func() { require.NoError(t, receiver.Close(context.Background())) }()
		ctx := context.Background()

		a, err := giver.Lock(ctx, "x")
		require.NoError(t, err)
		bc := lockLater(ctx, giver, "x")
		require.NoError(t, a.Unlock(ctx))
		b := <-bc
		require.NoError(t, b.err)
		require.Equal(t, tokenOf(a)+1, tokenOf(b.l), "b was handed a's store hold in memory")
		cc := lockLater(ctx, giver, "x")

		tok, err := giver.Share(b.l)
		require.NoError(t, err, "a lock granted in memory is shared")
		r, err := receiver.Adopt(ctx, tok)
		require.NoError(t, err)
		require.Equal(t, b.l.Owner(), r.Owner())
		if tokenOf(r) != tokenOf(b.l) {
			failure = fmt.Errorf("the adopter shows token %d, the grant carries %d", tokenOf(r), tokenOf(b.l))
			return
		}
		require.NoError(t, b.l.Unlock(ctx), "the giver leaves")
		for range 3 { // longer than the TTL: the waiter stays out while the adopter renews
			synctest.Wait()
			select {
			case c := <-cc:
				if c.err == nil {
					_ = c.l.Unlock(ctx)
				}
				failure = fmt.Errorf("the giver's waiter got x (token %d, owner %s, err %v) while the adopter (token %d, owner %s) held it",
					tokenOf(c.l), c.l.Owner(), c.err, tokenOf(r), r.Owner())
				_ = r.Unlock(ctx)
				return
			default:
			}
			time.Sleep(step)
		}
		require.False(t, isLost(r), "the adopter renews its own share")
		require.NoError(t, r.Unlock(ctx), "the last holder releases")
		c := <-cc
		require.NoError(t, c.err)
		require.NotEqual(t, a.Owner(), c.l.Owner(), "the waiter took x from the store: an acquisition of its own")
		if tokenOf(c.l) <= tokenOf(a)+2 {
			failure = fmt.Errorf("the waiter's token %d is not above the store hold's block %d..%d", tokenOf(c.l), tokenOf(a), tokenOf(a)+2)
		}
		require.NoError(t, c.l.Unlock(ctx))
	})
	return failure
}

// TestQueueLock_ShareOfALocalGrantLeavesTheLineToTheStore: a lock granted
// in memory is shared with the grant's own token; the giver's waiter is
// not handed it, and takes it from the store after the adopter leaves,
// with a token above the store hold's block.
func TestQueueLock_ShareOfALocalGrantLeavesTheLineToTheStore(t *testing.T) {
	require.NoError(t, shareOfAGrant(t, nil))
}

// TestQueueLock_ARetainedHoldIsNeverShared: with Retain, an unlocked lock
// whose hold is retained has nothing to share (ErrReleased, nothing
// changes: the next Lock still gets the hold in memory); a shared grant's
// Unlock is not retained but releases in the store at once.
func TestQueueLock_ARetainedHoldIsNeverShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &clock.Local{}
		s := model.New(clk)
		g, err := clock.NewGlobal(s, "", clk)
		require.NoError(t, err)
		l, err := New(s, &Options{Clock: clk, ProcessID: "p", Fencing: g, LocalHandoff: 4, Retain: time.Minute})
		require.NoError(t, err)
		defer func() { require.NoError(t, l.Close(context.Background())) }()
		ctx := context.Background()
		a, err := l.Lock(ctx, "x")
		require.NoError(t, err)
		require.NoError(t, a.Unlock(ctx))
		synctest.Wait()
		_, err = l.Share(a)
		require.ErrorIs(t, err, lockstep.ErrReleased, "a retained hold has no lock to share")
		require.ErrorContains(t, err, "share a lock while it is held")
		b, err := l.Lock(ctx, "x")
		require.NoError(t, err)
		require.Equal(t, a.Owner(), b.Owner(), "the refusal changed nothing: the hold is still retained")
		_, err = l.Share(b)
		require.NoError(t, err)
		require.NoError(t, b.Unlock(ctx))
		require.Empty(t, cells(t, s, "x"), "a shared grant's Unlock released in the store, not retained")
	})
}

// TestQueueLock_ShareOfALocalGrantRefusals: a lock of another Locker with
// local handoff, and a lock unlocked (handed on), are refused one by one,
// each changing nothing.
func TestQueueLock_ShareOfALocalGrantRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := model.New(&clock.Local{})
		ctx := context.Background()
		mk := func(p string) *testLocker {
			l, err := New(s, &Options{ProcessID: p, LocalHandoff: 2})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, l.Close(context.Background())) })
			return l
		}
		l, other := mk("p"), mk("q")
		a, err := l.Lock(ctx, "x")
		require.NoError(t, err)
		_, err = other.Share(a)
		require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
		require.ErrorContains(t, err, "share it on the Locker that took it")
		bc := lockLater(ctx, l, "x")
		require.NoError(t, a.Unlock(ctx))
		b := <-bc
		require.NoError(t, b.err)
		_, err = l.Share(a)
		require.ErrorIs(t, err, lockstep.ErrReleased, "a's grant was handed on")
		tok, err := l.Share(b.l)
		require.NoError(t, err, "the refusals left b shareable")
		_, err = other.Adopt(ctx, tok)
		require.True(t, err == nil || errors.Is(err, lockstep.ErrLocked), "adopt: %v", err)
		require.NoError(t, b.l.Unlock(ctx))
	})
}
