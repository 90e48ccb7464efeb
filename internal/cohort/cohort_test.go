package cohort

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/model"
)

// result is what a goroutine's Lock returned.
type result struct {
	l   lockstep.Lock
	err error
}

// lockAsync starts a Lock of id on f's manager and returns its outcome's
// channel, once the call waits in the line.
func (f *fixture) lockAsync(ctx context.Context, id string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		l, err := f.m.Lock(ctx, id)
		ch <- result{l, err}
	}()
	synctest.Wait()
	return ch
}

func token(t *testing.T, l lockstep.Lock) int64 {
	t.Helper()
	fl, ok := l.(lockstep.Fenced)
	require.True(t, ok, "a lock of a Locker with fencing carries a token")
	return fl.Token()
}

func TestLocalHandoff_PassesTheStoreHoldToTheNextWaiterWithAGreaterToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 4, nil)
		ctx := context.Background()
		a, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		bc := f.lockAsync(ctx, "x")
		require.Equal(t, 1, f.waiters("x"))
		require.NoError(t, a.Unlock(ctx))
		b := <-bc
		require.NoError(t, b.err)
		takes, releases := f.s.counts()
		require.Equal(t, 1, takes, "the waiter took no store hold of its own")
		require.Equal(t, 0, releases, "the holder's Unlock released nothing in the store")
		require.Equal(t, a.Owner(), b.l.Owner(), "one store hold, one owner")
		require.Greater(t, token(t, b.l), token(t, a))
		require.NoError(t, b.l.Unlock(ctx))
		_, releases = f.s.counts()
		require.Equal(t, 1, releases, "the last holder releases in the store")
		require.Zero(t, f.lines(), "no line is left")
	})
}

func TestLocalHandoff_ReleasesInTheStoreAfterTheBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 2, nil)
		ctx := context.Background()
		first, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		var chs []<-chan result
		for range 3 {
			chs = append(chs, f.lockAsync(ctx, "x"))
		}
		cur, owners := first, []string{first.Owner()}
		for _, ch := range chs {
			require.NoError(t, cur.Unlock(ctx))
			r := <-ch
			require.NoError(t, r.err)
			cur = r.l
			owners = append(owners, cur.Owner())
		}
		require.NoError(t, cur.Unlock(ctx))
		require.Equal(t, owners[0], owners[1])
		require.Equal(t, owners[0], owners[2], "two handoffs, the bound")
		require.NotEqual(t, owners[0], owners[3], "the third waiter took the id from the store")
		takes, releases := f.s.counts()
		require.Equal(t, 2, takes)
		require.Equal(t, 2, releases)
	})
}

func TestLocalHandoff_StoreLossReachesTheLocalHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 4, nil)
		ctx := context.Background()
		a, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		bc := f.lockAsync(ctx, "x")
		require.NoError(t, a.Unlock(ctx))
		b := <-bc
		require.NoError(t, b.err)
		select {
		case <-b.l.Lost():
			t.Fatal("lost before the store hold was")
		default:
		}
		cc := f.lockAsync(ctx, "x")
		f.s.losses[0].Fire()
		<-b.l.Lost()
		require.ErrorIs(t, b.l.Unlock(ctx), lockstep.ErrLost)
		c := <-cc
		require.NoError(t, c.err)
		require.NotEqual(t, a.Owner(), c.l.Owner(), "a lost hold is not handed on")
		select {
		case <-c.l.Lost():
			t.Fatal("the next store hold is not lost")
		default:
		}
		require.NoError(t, c.l.Unlock(ctx))
	})
}

func TestLocalHandoff_CancelledWaiterLeavesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 4, nil)
		ctx := context.Background()
		a, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		wctx, cancel := context.WithCancel(ctx)
		bc := f.lockAsync(wctx, "x")
		cancel()
		b := <-bc
		require.ErrorIs(t, b.err, context.Canceled)
		require.Zero(t, f.waiters("x"))
		require.NoError(t, a.Unlock(ctx))
		require.Zero(t, f.lines())
		takes, releases := f.s.counts()
		require.Equal(t, 1, takes)
		require.Equal(t, 1, releases)
	})
}

func TestLocalHandoff_WaiterCancelledAsItIsHandedPassesItOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 4, nil)
		ctx := context.Background()
		a, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		// Hand the hold to a waiter whose ctx ends as it is handed it
		// (await's giveUp): it must pass the hold on.
		ln := f.c.lines["x"]
		w := &waiter{ready: make(chan struct{})}
		f.c.mu.Lock()
		ln.waiters = append(ln.waiters, w)
		f.c.mu.Unlock()
		cc := f.lockAsync(ctx, "x") // behind w
		require.NoError(t, a.Unlock(ctx))
		<-w.ready
		require.NotNil(t, w.h, "w was handed the hold")
		f.c.giveUp(ctx, ln, w)
		c := <-cc
		require.NoError(t, c.err)
		require.Equal(t, a.Owner(), c.l.Owner(), "passed on to the next in line")
		require.NoError(t, c.l.Unlock(ctx))
		require.Zero(t, f.lines())
		_, releases := f.s.counts()
		require.Equal(t, 1, releases)
	})
}

func TestLocalHandoff_TryLockFailsWhileHeldHereAndOtherAccessesPassThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 4, nil)
		ctx := context.Background()
		a, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		_, err = f.m.TryLock(ctx, "x")
		require.ErrorIs(t, err, lockstep.ErrLocked)
		require.NoError(t, a.Unlock(ctx))
		s, err := f.m.LockGroup(ctx, lockstep.Request{ID: "x", Access: lockstep.Shared})
		require.NoError(t, err)
		require.Zero(t, f.lines(), "a shared lock has no line")
		require.NoError(t, s.Unlock(ctx))
		tl, err := f.m.TryLock(ctx, "x")
		require.NoError(t, err)
		require.NoError(t, tl.Unlock(ctx))
		takes, releases := f.s.counts()
		require.Equal(t, 3, takes)
		require.Equal(t, 3, releases)
	})
}

func TestLocalHandoff_CloseEndsWaitersAndReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 4, nil)
		ctx := context.Background()
		_, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		bc := f.lockAsync(ctx, "x")
		require.NoError(t, f.m.Close(ctx))
		b := <-bc
		require.ErrorIs(t, b.err, lockstep.ErrClosed)
		require.Zero(t, f.lines())
		_, releases := f.s.counts()
		require.Equal(t, 1, releases)
	})
}

func TestLocalHandoff_PlantedDefects(t *testing.T) {
	for _, c := range []struct {
		name  string
		k     TestingKnobs
		check func(t *testing.T, f *fixture, tokens []int64, owners []string)
	}{
		{"ReuseToken", TestingKnobs{ReuseToken: true}, func(t *testing.T, _ *fixture, tokens []int64, _ []string) {
			require.Equal(t, tokens[0], tokens[1], "the planted defect hands the same token on")
		}},
		{"Unbounded", TestingKnobs{Unbounded: true}, func(t *testing.T, _ *fixture, _ []int64, owners []string) {
			require.Equal(t, owners[0], owners[3], "the planted defect passes the bound")
		}},
		{"UnreservedBlock", TestingKnobs{UnreservedBlock: true}, func(t *testing.T, f *fixture, tokens []int64, owners []string) {
			require.Equal(t, owners[2], owners[3])
			cell, err := f.g.Read(context.Background())
			require.NoError(t, err)
			require.Less(t, cell, tokens[3], "the planted defect handed out a token the global cell does not cover")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, 1, &c.k)
				ctx := context.Background()
				cur, err := f.m.Lock(ctx, "x")
				require.NoError(t, err)
				var chs []<-chan result
				for range 3 {
					chs = append(chs, f.lockAsync(ctx, "x"))
				}
				tokens, owners := []int64{token(t, cur)}, []string{cur.Owner()}
				for _, ch := range chs {
					require.NoError(t, cur.Unlock(ctx))
					r := <-ch
					require.NoError(t, r.err)
					cur = r.l
					tokens, owners = append(tokens, token(t, cur)), append(owners, cur.Owner())
				}
				require.NoError(t, cur.Unlock(ctx))
				c.check(t, f, tokens, owners)
			})
		})
	}
}

func TestNew_RefusesBadOptions(t *testing.T) {
	clk := &clock.Local{}
	for _, c := range []struct {
		name  string
		inner bool
		o     Options
		field string
	}{
		{"nil inner", false, Options{Bound: 1, Clock: clk}, "inner"},
		{"zero bound", true, Options{Bound: 0, Clock: clk}, "LocalHandoff"},
		{"negative bound", true, Options{Bound: -2, Clock: clk}, "LocalHandoff"},
		{"nil clock", true, Options{Bound: 1}, "Clock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s *store
			if c.inner {
				s = newStore(nil)
			}
			var err error
			if s != nil {
				_, err = New(s, c.o)
			} else {
				_, err = New(nil, c.o)
			}
			require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
			var ce *lockstep.ConfigError
			require.True(t, errors.As(err, &ce))
			require.Equal(t, c.field, ce.Field)
		})
	}
}

func TestHold_ReleasesEveryPartInParallelWhenTheSpecSaysSo(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		s := newStore(nil)
		a, b := &fakePart{s: s, slot: make(chan struct{}, 1)}, &fakePart{s: s, slot: make(chan struct{}, 1)}
		a.slot <- struct{}{}
		b.slot <- struct{}{}
		released := 0
		h := &hold{spec: held.Spec{Parts: []held.Part{a, b}, ParallelRelease: parallel, OnReleased: func() { released++ }}}
		sent, err := h.release(context.Background(), &clock.Local{})
		require.NoError(t, err)
		require.True(t, sent)
		require.True(t, a.released && b.released)
		sent, err = h.release(context.Background(), &clock.Local{})
		require.NoError(t, err)
		require.False(t, sent, "a released hold sends nothing again")
		require.Equal(t, 1, released)
	}
}

func TestLocalHandoff_GrantsTheBlocksNextTokenWithNoStoreRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gs := &countingStore{Store: model.New(&clock.Local{})}
		f := newFixtureOn(t, 3, nil, gs)
		ctx := context.Background()
		cur, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		require.EqualValues(t, 2, gs.requests.Load(), "the store acquisition's draw: a read and a write")
		var chs []<-chan result
		for range 3 {
			chs = append(chs, f.lockAsync(ctx, "x"))
		}
		tokens := []int64{token(t, cur)}
		for _, ch := range chs {
			require.NoError(t, cur.Unlock(ctx))
			r := <-ch
			require.NoError(t, r.err)
			cur = r.l
			tokens = append(tokens, token(t, cur))
		}
		require.EqualValues(t, 2, gs.requests.Load(), "three local grants sent nothing to the global cell")
		for i := 1; i < len(tokens); i++ {
			require.Equal(t, tokens[0]+int64(i), tokens[i], "grant %d takes the block's next token", i)
		}
		require.NoError(t, cur.Unlock(ctx))
		takes, releases := f.s.counts()
		require.Equal(t, 1, takes)
		require.Equal(t, 1, releases)
		next, err := f.g.Next(ctx) // a remote successor's draw
		require.NoError(t, err)
		require.Greater(t, next, tokens[3], "the block was reserved as a whole")
	})
}

func TestLocalHandoff_LeaseDeadlinePassedAtTheGrantTakesTheIDFromTheStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 4, nil)
		ctx := context.Background()
		a, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		// The store hold's lease deadline, as a queue part's Watch gives
		// it: it passes after the handoff, before the grant, and no
		// goroutine fires the signal.
		var passed atomic.Bool
		f.s.losses[0].Watch(func() time.Duration {
			if passed.Load() {
				return 0
			}
			return time.Minute
		})
		ln := f.c.lines["x"]
		w := &waiter{ready: make(chan struct{})}
		f.c.mu.Lock()
		ln.waiters = append(ln.waiters, w)
		f.c.mu.Unlock()
		require.NoError(t, a.Unlock(ctx))
		<-w.ready
		require.NotNil(t, w.h, "w was handed the hold")
		passed.Store(true)
		spec, err := f.c.grantLocal(ctx, &manager.Acquisition{ID: "x", Access: lockstep.Exclusive}, w.h)
		require.NoError(t, err)
		require.NotEqual(t, a.Owner(), spec.Owner, "the lapsed hold was released and the id taken from the store")
		require.Greater(t, spec.Token, token(t, a))
		takes, releases := f.s.counts()
		require.Equal(t, 2, takes)
		require.Equal(t, 1, releases)
		require.False(t, spec.Parts[0].Stop())
		_, err = spec.Parts[0].Release(ctx)
		require.NoError(t, err)
		require.Zero(t, f.lines())
	})
}

// A Try acquisition the line refuses reports the mode of the hold that
// makes the line busy (the AcquireEvent's Mode, a metrics label), not the
// unknown mode of an acquisition no algorithm chose one for.
func TestTry_RefusedInTheLineReportsTheHoldersMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 4, nil)
		ctx := context.Background()
		l, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		a := &manager.Acquisition{ID: "x", Access: lockstep.Exclusive, Try: true}
		_, err = f.c.Take(ctx, a)
		require.ErrorIs(t, err, lockstep.ErrLocked)
		require.Equal(t, lockstep.ModeNew, a.Mode)
		require.NoError(t, l.Unlock(ctx))
	})
}
