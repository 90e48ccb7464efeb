package queue

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
)

// Options.IntentionRange (docs/algorithms.md, section 4.14).

// newRanged is newPlanted with Options.IntentionRange set to on.
func newRanged(t *testing.T, s lockstep.Store, on bool, k *TestingKnobs) *testLocker {
	t.Helper()
	l, err := New(s, &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, IntentionRange: on, TestingKnobs: k})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// cellsRead counts the cells the store returns to reads, per reader mark.
type cellsRead struct {
	lockstep.Store
	mu    sync.Mutex
	on    bool
	reads int
	cells int
	most  int
}

func (c *cellsRead) Read(ctx context.Context, t, r string, s lockstep.Slice) ([]lockstep.Cell, error) {
	cs, err := c.Store.Read(ctx, t, r, s)
	c.mu.Lock()
	if c.on && s != layout.FloorSlice() {
		c.reads++
		c.cells += len(cs)
		c.most = max(c.most, len(cs))
	}
	c.mu.Unlock()
	return cs, err
}

func (c *cellsRead) count(on bool) (reads, cells, most int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = on
	return c.reads, c.cells, c.most
}

// What the range is for: a claim in IX on an id that 40 other Lockers
// hold in IX reads one cell per holder without it, and none of theirs with
// it — its own queue and owner cells and the floor at most, per read.
func TestIntentionRange_AnIntentionClaimReadsNoOtherIntentionHolder(t *testing.T) {
	const holders = 40
	for _, on := range []bool{false, true} {
		t.Run(map[bool]string{false: "off", true: "on"}[on], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				s := &cellsRead{Store: model.New(&clock.Local{})}
				var held []lockstep.Lock
				for range holders {
					lk, err := lockIn(ctx, newRanged(t, s, on, nil), "a", lockstep.IntentExclusive)
					require.NoError(t, err)
					held = append(held, lk)
				}
				time.Sleep(2 * time.Second) // past every holder's first renewal: their queue cells are gone (4.13)
				synctest.Wait()
				c := newRanged(t, s, on, nil)
				s.count(true)
				lk, err := lockIn(ctx, c, "a", lockstep.IntentExclusive)
				require.NoError(t, err)
				reads, got, most := s.count(false)
				require.Positive(t, reads)
				if on {
					require.LessOrEqual(t, most, 3, "a read returned %d cells (%d in %d reads)", most, got, reads)
				} else {
					require.GreaterOrEqual(t, most, holders, "without the range a read returns every holder's owner cell")
				}
				t.Logf("IntentionRange %v: %d reads returned %d cells, at most %d", on, reads, got, most)
				for _, h := range append(held, lk) {
					require.NoError(t, h.Unlock(ctx))
				}
				require.Empty(t, cells(t, s, "a"))
			})
		})
	}
}

// The range holds the owner cells of intention acquisitions only: an IX
// and an IS of one Locker take the range's columns (slots 0 and 1); an S
// of that Locker later takes its ordinary column.
func TestIntentionRange_OnlyIntentionCellsMoveToTheRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		l := newRanged(t, s, true, nil)
		ix, err := lockIn(ctx, l, "k", lockstep.IntentExclusive)
		require.NoError(t, err)
		is, err := lockIn(ctx, l, "k", lockstep.IntentShared)
		require.NoError(t, err)
		var owners []string
		for _, c := range cells(t, s, "k") {
			if col, _, ok := strings.Cut(c, "="); ok {
				owners = append(owners, col)
			}
		}
		ranged := layout.IntentionColumn(l.ownerCol)
		require.Equal(t, []string{ranged, ranged + ".1"}, owners)
		require.NoError(t, ix.Unlock(ctx))
		require.NoError(t, is.Unlock(ctx))
		require.Empty(t, cells(t, s, "k"))

		sh, err := lockIn(ctx, l, "k", lockstep.Shared)
		require.NoError(t, err)
		require.Equal(t, []string{l.ownerCol + "=" + sh.Owner() + "\naccess=S"}, ownerCells(t, s, "k"))
		require.NoError(t, sh.Unlock(ctx))
	})
}

func ownerCells(t *testing.T, s lockstep.Store, id string) []string {
	var out []string
	for _, c := range cells(t, s, id) {
		if strings.Contains(c, "=") {
			out = append(out, c)
		}
	}
	return out
}

// A claim in S, SIX or X sees the intention holders, whichever side of the
// option either Locker is on, and an intention claim still sees the
// holders it conflicts with: the exclusion argument of section 4.14, by
// TryLock (which writes nothing when it sees the id busy) and by a waiter
// that holds only once the last conflicting holder has gone.
func TestIntentionRange_ConflictsAreSeenAcrossTheOption(t *testing.T) {
	all := []lockstep.Access{lockstep.IntentShared, lockstep.IntentExclusive, lockstep.Shared, lockstep.SharedIntentExclusive, lockstep.Exclusive}
	for _, holderOn := range []bool{false, true} {
		for _, askerOn := range []bool{false, true} {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				s := model.New(&clock.Local{})
				h, a := newRanged(t, s, holderOn, nil), newRanged(t, s, askerOn, nil)
				for _, held := range all {
					lk, err := lockIn(ctx, h, "k", held)
					require.NoError(t, err)
					time.Sleep(2 * time.Second) // the holder's queue cell gone: only its owner cell speaks
					synctest.Wait()
					for _, asked := range all {
						other, err := a.acquireOne(ctx, "k", asked, true)
						if held.Compatible(asked) {
							require.NoError(t, err, "holder %v (range %v), asker %v (range %v)", held, holderOn, asked, askerOn)
							require.NoError(t, other.Unlock(ctx))
						} else {
							require.ErrorIs(t, err, lockstep.ErrLocked, "holder %v (range %v), asker %v (range %v)", held, holderOn, asked, askerOn)
						}
					}
					var waiter <-chan lockstep.Lock
					if held != lockstep.Exclusive {
						waiter = pending(t, a, "k", lockstep.Exclusive)
						time.Sleep(500 * time.Millisecond)
						synctest.Wait()
						require.False(t, holds(waiter), "an X waiter holds beside %v (ranges %v, %v)", held, holderOn, askerOn)
					}
					require.NoError(t, lk.Unlock(ctx))
					if waiter != nil {
						wl := granted(t, waiter)
						require.NoError(t, wl.Unlock(ctx))
					}
				}
				require.Empty(t, cells(t, s, "k"))
			})
		}
	}
}

// A shared intention hold is handed over and released by its last holder:
// Adopt's and the leaver's reads look for the other holders of the owner
// id, whose cells are in the range, so they read it.
func TestIntentionRange_ShareAndAdoptAnIntentionHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		giver, receiver, third := newRanged(t, s, true, nil), newRanged(t, s, true, nil), newRanged(t, s, true, nil)
		l, err := lockIn(ctx, giver, "a", lockstep.IntentExclusive)
		require.NoError(t, err)
		tok, err := giver.Share(l)
		require.NoError(t, err)
		l2, err := receiver.Adopt(ctx, tok)
		require.NoError(t, err)
		require.NoError(t, l.Unlock(ctx))
		_, err = third.acquireOne(ctx, "a", lockstep.Exclusive, true)
		require.ErrorIs(t, err, lockstep.ErrLocked, "the receiver still holds IX")
		require.NoError(t, l2.Unlock(ctx))
		require.Empty(t, cells(t, s, "a"))
	})
}

// injectX is a store that, the first time an owner cell in the intention
// range is written, writes an X owner cell of another Locker into the same
// partition before it answers: a conflicting claim that lands between a
// split claimant's may-claim read and its claim read.
type injectX struct {
	lockstep.Store
	once sync.Once
	ts   int64
}

const injectedX = "~o/zz/0000000000000001"

func (s *injectX) Put(ctx context.Context, t, r string, cs ...lockstep.Cell) error {
	err := s.Store.Put(ctx, t, r, cs...)
	for _, c := range cs {
		if layout.InIntentionRange(c.Column) {
			s.once.Do(func() {
				s.ts = time.Now().UnixMicro()
				err = errors.Join(err, s.Store.Put(ctx, t, r, layout.OwnerCell(injectedX, "zz.1", lockstep.Exclusive, s.ts, ttl)))
			})
		}
	}
	return err
}

// An intention claim with the option sees, in its claim's read, an X owner
// cell written after its may-claim (here: beside its fast path's write),
// withdraws, and holds only once that cell is gone: the first of its two
// requests covers every cell under "~o/" (section 4.14).
func TestIntentionRange_AClaimSeesAConflictingCellWrittenBesideIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := &injectX{Store: model.New(&clock.Local{})}
		c := newRanged(t, s, true, nil)
		ch := pending(t, c, "a", lockstep.IntentExclusive)
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		require.NotZero(t, s.ts, "the claim wrote no cell in the range")
		require.False(t, holds(ch), "IX holds beside an X owner cell")
		require.NoError(t, s.Store.Delete(ctx, DefaultTable, "a", s.ts+1, injectedX))
		lk := granted(t, ch)
		require.NoError(t, lk.Unlock(ctx))
		require.Empty(t, cells(t, s, "a"))
	})
}
