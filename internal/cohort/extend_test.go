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

// extendingStore is the fake inner algorithm with a Watcher and an
// Extender: Extend reserves a block from the global cell and keeps it only
// if the hold's lease is open when the draw returned (as the queue lock's
// does); refuse makes it fail, onLook runs at each look before it reads.
type extendingStore struct {
	*watchingStore
	refuse  atomic.Bool
	extends atomic.Int32
	onLook  func()
	// stall, when set, makes each look wait for its ctx to end: stalls
	// counts the looks that began waiting, stalled those that ended.
	stall           bool
	stalls, stalled atomic.Int32
}

func (e *extendingStore) Waiting(ctx context.Context, s held.Spec) (bool, error) {
	if e.onLook != nil {
		e.onLook()
	}
	if e.stall {
		e.stalls.Add(1)
		<-ctx.Done()
		e.stalled.Add(1)
		return false, ctx.Err()
	}
	return e.watchingStore.Waiting(ctx, s)
}

func (e *extendingStore) Extend(ctx context.Context, s held.Spec, n int) (int64, error) {
	if e.refuse.Load() {
		return 0, errors.New("extending store: cannot draw")
	}
	t, err := e.global.Reserve(ctx, n)
	if err != nil {
		return 0, err
	}
	if s.Loss.Fired() {
		return 0, lockstep.ErrLost
	}
	e.extends.Add(1)
	return t, nil
}

// newExtendFixture is newFixture over an extendingStore, with fencing
// tokens from a global cell when fenced.
func newExtendFixture(t *testing.T, bound int, k *TestingKnobs, fenced bool) (*fixture, *extendingStore) {
	t.Helper()
	return newExtendFixtureWith(t, Options{Bound: bound, TestingKnobs: k}, fenced)
}

// newExtendFixtureWith is newExtendFixture with Options o (its Clock set
// here).
func newExtendFixtureWith(t *testing.T, o Options, fenced bool) (*fixture, *extendingStore) {
	t.Helper()
	clk := &clock.Local{}
	o.Clock = clk
	g, err := clock.NewGlobal(model.New(clk), "", clk)
	require.NoError(t, err)
	s := newStore(nil)
	if fenced {
		s = newStore(g)
	}
	e := &extendingStore{watchingStore: &watchingStore{store: s}}
	c, err := New(e, o)
	require.NoError(t, err)
	m, err := manager.NewLocker(c, manager.Config{Name: "test", Mode: lockstep.ModeNew, Clock: clk, Observer: lockstep.NopObserver{}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, m.Close(context.Background())) })
	return &fixture{s: s, c: c, m: m, g: g}, e
}

// handOn unlocks cur with a Lock of its id waiting in the line and returns
// what that Lock got.
func (f *fixture) handOn(t *testing.T, cur lockstep.Lock) lockstep.Lock {
	t.Helper()
	ctx := context.Background()
	ch := f.lockAsync(ctx, cur.ID())
	require.NoError(t, cur.Unlock(ctx))
	r := <-ch
	require.NoError(t, r.err)
	return r.l
}

func TestExtend_NobodyWaitingInTheStoreExtendsTheHoldWithAFreshBlock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, e := newExtendFixture(t, 2, nil, true)
		ctx := context.Background()
		a, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		locks := []lockstep.Lock{a}
		handOn := func(n int) {
			for range n {
				locks = append(locks, f.handOn(t, locks[len(locks)-1]))
			}
		}
		handOn(3)
		t0 := token(t, a)
		require.Equal(t, t0+1, token(t, locks[1]))
		require.Equal(t, t0+2, token(t, locks[2]), "the first block's last")
		t3 := token(t, locks[3])
		require.Greater(t, t3, t0+2, "the extension's grant takes a fresh block's first")
		cell, err := f.g.Read(ctx)
		require.NoError(t, err)
		require.Equal(t, t3+2, cell, "the fresh block of Bound+1 was reserved as a whole")
		require.EqualValues(t, 1, e.looks.Load(), "one look, sent ahead at the first block's first local grant")
		require.EqualValues(t, 1, e.extends.Load())
		handOn(2)
		for i, l := range locks {
			require.Equal(t, a.Owner(), l.Owner(), "grant %d: one store hold", i)
		}
		require.Equal(t, t3+1, token(t, locks[4]))
		require.Equal(t, t3+2, token(t, locks[5]))
		synctest.Wait()
		require.EqualValues(t, 2, e.looks.Load(), "each block sends its own look ahead")
		require.EqualValues(t, 2, e.extends.Load(), "the second block's look saw nobody: a block drawn for its bound")
		require.NoError(t, locks[5].Unlock(ctx))
		takes, releases := f.s.counts()
		require.Equal(t, 1, takes)
		require.Equal(t, 1, releases)
		require.Zero(t, f.lines())
	})
}

func TestExtend_WithoutFencingTheLookAloneExtends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, e := newExtendFixture(t, 1, nil, false)
		ctx := context.Background()
		cur, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		owner := cur.Owner()
		for range 4 {
			cur = f.handOn(t, cur)
			require.Equal(t, owner, cur.Owner())
		}
		require.NoError(t, cur.Unlock(ctx))
		require.EqualValues(t, 2, e.looks.Load(), "a look at each bound")
		require.Zero(t, e.extends.Load(), "no tokens: nothing drawn")
		takes, _ := f.s.counts()
		require.Equal(t, 1, takes)
	})
}

// TestExtend_ReleasesAtTheBound: the hold is first extended once (nobody
// waits), then, at its next bound, released in the store for each reason
// extension refuses, and the waiter takes the id from the store with a
// token above the extended block.
func TestExtend_ReleasesAtTheBound(t *testing.T) {
	for _, c := range []struct {
		name   string
		fenced bool
		set    func(f *fixture, e *extendingStore)
	}{
		{"WhenAnotherOwnerWaitsInTheStore", true, func(_ *fixture, e *extendingStore) { e.waiting.Store(true) }},
		{"WhenTheLookFails", true, func(_ *fixture, e *extendingStore) { e.fail.Store(true) }},
		{"WhenTheReservationFails", true, func(_ *fixture, e *extendingStore) { e.refuse.Store(true) }},
		{"WhenTheLeaseClosesDuringTheDraw", true, leaseClosesAtTheLook},
		{"WhenTheLeaseClosesDuringTheLookWithoutFencing", false, leaseClosesAtTheLook},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f, e := newExtendFixture(t, 1, nil, c.fenced)
				ctx := context.Background()
				a, err := f.m.Lock(ctx, "x")
				require.NoError(t, err)
				b := f.handOn(t, a)
				ext := f.handOn(t, b) // at the bound: extended
				require.Equal(t, a.Owner(), ext.Owner(), "nobody waits: extended")
				c.set(f, e) // before d: d's handing sends the block's look ahead
				d := f.handOn(t, ext)
				require.Equal(t, a.Owner(), d.Owner())
				next := f.handOn(t, d) // at the bound again: d unlocked, the look ahead still in flight
				require.NotEqual(t, a.Owner(), next.Owner(), "released in the store, taken afresh")
				if c.fenced {
					require.Greater(t, token(t, next), token(t, d))
				}
				takes, releases := f.s.counts()
				require.Equal(t, 2, takes)
				require.Equal(t, 1, releases)
				require.NoError(t, next.Unlock(ctx))
				require.Zero(t, f.lines())
			})
		})
	}
}

// leaseClosesAtTheLook makes the first store hold's lease deadline pass
// while the next look is in flight, after the grant whose handing sent it,
// with no goroutine firing the signal.
func leaseClosesAtTheLook(f *fixture, e *extendingStore) {
	var passed atomic.Bool
	f.s.losses[0].Watch(func() time.Duration {
		if passed.Load() {
			return 0
		}
		return time.Minute
	})
	e.onLook = func() {
		time.Sleep(time.Millisecond) // sent as d is handed the hold: the lease closes after d's grant and Unlock
		passed.Store(true)
	}
}

func TestExtend_AnotherAccessWaitingInProcessReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, e := newExtendFixture(t, 1, nil, true)
		ctx := context.Background()
		a, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		b := f.handOn(t, a)
		ext := f.handOn(t, b)
		require.Equal(t, a.Owner(), ext.Owner(), "nobody waits: extended")
		d := f.handOn(t, ext)
		sc := make(chan result, 1)
		go func() {
			l, err := f.m.LockGroup(ctx, lockstep.Request{ID: "x", Access: lockstep.Shared})
			sc <- result{l, err}
		}()
		synctest.Wait()
		ec := f.lockAsync(ctx, "x")
		require.NoError(t, d.Unlock(ctx))
		synctest.Wait()
		_, releases := f.s.counts()
		require.Equal(t, 1, releases, "released at the bound: a shared request waits behind the hold in the process")
		require.EqualValues(t, 2, e.looks.Load(), "d's block sent its look ahead before the request came; its answer does not count")
		for range 2 {
			select {
			case r := <-sc:
				require.NoError(t, r.err)
				require.NoError(t, r.l.Unlock(ctx))
			case r := <-ec:
				require.NoError(t, r.err)
				require.NotEqual(t, a.Owner(), r.l.Owner())
				require.NoError(t, r.l.Unlock(ctx))
			}
		}
		require.Zero(t, f.lines())
	})
}

// TestExtend_AClaimThatSawAWaiterReleasesAtTheBoundWithoutALook: a store
// hold whose claim saw another acquisition in line (held.Spec.Crowded) is
// released at its bound as without extension, with no look; the next
// store hold, whose claim saw nobody, is extended after its look.
func TestExtend_AClaimThatSawAWaiterReleasesAtTheBoundWithoutALook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, e := newExtendFixture(t, 1, nil, true)
		ctx := context.Background()
		f.s.crowded.Store(true)
		a, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		f.s.crowded.Store(false)
		c := f.handOn(t, f.handOn(t, a))
		require.NotEqual(t, a.Owner(), c.Owner(), "released at the bound")
		require.Zero(t, e.looks.Load(), "no look: the claim saw a waiter")
		ext := f.handOn(t, f.handOn(t, c))
		require.Equal(t, c.Owner(), ext.Owner(), "extended after a look")
		require.EqualValues(t, 1, e.looks.Load())
		require.NoError(t, ext.Unlock(ctx))
	})
}

// TestExtend_TheLookIsSentAheadOfTheBound: with Bound 8 a block's look is
// sent as the hold is handed for its sixth local grant (LookLead grants
// before the bound), and the extension at the bound uses its answer. A
// waiter of another owner that shows after that look is not seen by it:
// the hold is extended once more, and released at the next bound, whose
// block sent its own look.
func TestExtend_TheLookIsSentAheadOfTheBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, e := newExtendFixture(t, 8, nil, true)
		ctx := context.Background()
		cur, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		owner := cur.Owner()
		for i := 1; i <= 8; i++ {
			cur = f.handOn(t, cur)
			synctest.Wait()
			want := 0
			if i >= 6 {
				want = 1
			}
			require.EqualValues(t, want, e.looks.Load(), "looks after local grant %d", i)
		}
		e.waiting.Store(true) // after the block's look: unseen until the next block's
		for i := range 9 {
			cur = f.handOn(t, cur)
			require.Equal(t, owner, cur.Owner(), "grant %d of the extension", i)
		}
		require.EqualValues(t, 2, e.looks.Load())
		cur = f.handOn(t, cur)
		require.NotEqual(t, owner, cur.Owner(), "the extension's own look saw the waiter: released at its bound")
		takes, releases := f.s.counts()
		require.Equal(t, 2, takes)
		require.Equal(t, 1, releases)
		require.NoError(t, cur.Unlock(ctx))
	})
}

// A hold that ends before its bound — nobody left in line at its sixth
// grant of eight — ends its look ahead too: the look's answer would be for
// a bound the hold never reaches, and the draw after it a wasted block.
func TestExtend_AHoldThatEndsBeforeItsBoundEndsItsLookAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, e := newExtendFixture(t, 8, nil, true)
		e.stall = true
		ctx := context.Background()
		cur, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		for range 6 {
			cur = f.handOn(t, cur)
		}
		synctest.Wait()
		require.EqualValues(t, 1, e.stalls.Load(), "the look ahead was sent at the sixth grant")
		require.Zero(t, e.stalled.Load(), "the look waits while the hold goes on")
		require.NoError(t, cur.Unlock(ctx)) // nobody in line: released in the store
		synctest.Wait()
		require.EqualValues(t, 1, e.stalled.Load(), "the hold's release ended its look")
		require.Zero(t, e.extends.Load())
		_, releases := f.s.counts()
		require.Equal(t, 1, releases)
	})
}

func TestExtend_PlantedDefects(t *testing.T) {
	t.Run("ExtendOnFirstLook", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f, e := newExtendFixture(t, 1, &TestingKnobs{ExtendOnFirstLook: true}, true)
			a, err := f.m.Lock(context.Background(), "x")
			require.NoError(t, err)
			cur := f.handOn(t, f.handOn(t, a)) // extended on the first look
			e.waiting.Store(true)
			for range 4 {
				cur = f.handOn(t, cur)
				require.Equal(t, a.Owner(), cur.Owner(), "the planted defect extends on the first look's answer")
			}
			require.EqualValues(t, 1, e.looks.Load())
			require.NoError(t, cur.Unlock(context.Background()))
		})
	})
	t.Run("ExtendUnlooked", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f, e := newExtendFixture(t, 1, &TestingKnobs{ExtendUnlooked: true}, true)
			e.waiting.Store(true)
			a, err := f.m.Lock(context.Background(), "x")
			require.NoError(t, err)
			c := f.handOn(t, f.handOn(t, a))
			require.Equal(t, a.Owner(), c.Owner(), "the planted defect extends past a waiting owner")
			require.Zero(t, e.looks.Load())
			require.NoError(t, c.Unlock(context.Background()))
		})
	})
	t.Run("ExtendUnreserved", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f, e := newExtendFixture(t, 1, &TestingKnobs{ExtendUnreserved: true}, true)
			a, err := f.m.Lock(context.Background(), "x")
			require.NoError(t, err)
			ext := f.handOn(t, f.handOn(t, a))
			synctest.Wait()
			cell, err := f.g.Read(context.Background())
			require.NoError(t, err)
			require.Equal(t, cell, token(t, ext), "the planted defect reserved the extension's first alone")
			require.NoError(t, f.c.Close(context.Background())) // no more looks ahead: the next grant is unreserved
			d := f.handOn(t, ext)
			require.Equal(t, a.Owner(), d.Owner())
			require.EqualValues(t, 1, e.extends.Load())
			cell, err = f.g.Read(context.Background())
			require.NoError(t, err)
			require.Less(t, cell, token(t, d), "the planted defect granted a token the global cell does not cover")
			require.NoError(t, d.Unlock(context.Background()))
		})
	})
}

// TestExtend_ARetainedHoldReLockedByOneGoroutineSendsNoLookAhead: re-locks
// of a retained hold by one goroutine, with nobody in line, draw nothing
// ahead: the hold is released at its bound, where a draw would be wasted.
// A waiter that then reaches the bound gets a look and a draw sent at the
// bound, and the hold is extended.
func TestExtend_ARetainedHoldReLockedByOneGoroutineSendsNoLookAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, e := newExtendFixtureWith(t, Options{Bound: 8, Retain: testRetain, WatchEvery: testWatch}, true)
		m := f.m
		ctx := context.Background()
		cur, err := m.Lock(ctx, "x")
		require.NoError(t, err)
		owner := cur.Owner()
		for range 7 { // re-locks of the retained hold: local grants 1 to 7
			require.NoError(t, cur.Unlock(ctx))
			synctest.Wait()
			cur, err = m.Lock(ctx, "x")
			require.NoError(t, err)
			require.Equal(t, owner, cur.Owner(), "granted in memory")
		}
		cur = f.handOn(t, cur) // local grant 8, to a waiter
		synctest.Wait()
		require.Zero(t, e.extends.Load(), "nobody was in line at grant 6: no draw ahead")
		ext := f.handOn(t, cur) // at the bound, with a waiter
		require.Equal(t, owner, ext.Owner(), "extended on a look and a draw sent at the bound")
		require.EqualValues(t, 1, e.extends.Load())
		require.Greater(t, token(t, ext), token(t, cur))
		require.NoError(t, ext.Unlock(ctx))
	})
}
