package queue

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// waitBound bounds every acquisition of lockIn. Inside a synctest bubble it
// is the bubble's time, which passes at once while every goroutine waits: an
// acquisition a defect keeps from ever being granted then fails within
// moments of real time with the context's error, where an unbounded one
// would keep the bubble's timers turning until the test binary's timeout.
// It is well past the longest wait a test here expects (5 TTLs).
const waitBound = 2 * time.Minute

// lockIn takes id in access a through the Locker's own acquisition, for at
// most waitBound.
func lockIn(ctx context.Context, l *testLocker, id string, a lockstep.Access) (lockstep.Lock, error) {
	ctx, cancel := context.WithTimeout(ctx, waitBound)
	defer cancel()
	return l.LockGroup(ctx, lockstep.Request{ID: id, Access: a})
}

// pending starts an acquisition of id in access a and returns a channel that
// yields its lock once held, or nil when the acquisition failed. It ends
// with the test (t.Context), so a test that fails while it waits does not
// leave it polling.
func pending(t *testing.T, l *testLocker, id string, a lockstep.Access) <-chan lockstep.Lock {
	t.Helper()
	ctx := t.Context()
	ch := make(chan lockstep.Lock, 1)
	go func() {
		lk, err := lockIn(ctx, l, id, a)
		if ctx.Err() == nil {
			assert.NoError(t, err)
		}
		ch <- lk
	}()
	return ch
}

// granted returns pending's lock once held, failing the test when the
// acquisition failed (lockIn's waitBound ends one never granted).
func granted(t *testing.T, ch <-chan lockstep.Lock) lockstep.Lock {
	t.Helper()
	lk := <-ch
	require.NotNil(t, lk, "not granted within %v", waitBound)
	return lk
}

func holds(ch <-chan lockstep.Lock) bool {
	select {
	case lk := <-ch:
		return lk != nil
	default:
		return false
	}
}

// Readers of three processes hold one id at once; a writer waits for all of
// them; a reader that arrives after the waiting writer waits behind it; when
// the writer is done, the reader holds.
func TestAccess_ReadersShareAndAWaitingWriterIsNotBypassed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		r1, r2, w, r3 := newLocker(t, s, nil), newLocker(t, s, nil), newLocker(t, s, nil), newLocker(t, s, nil)
		l1, err := lockIn(ctx, r1, "k", lockstep.Shared)
		require.NoError(t, err)
		l2, err := lockIn(ctx, r2, "k", lockstep.Shared)
		require.NoError(t, err, "a second reader must share")

		wch := pending(t, w, "k", lockstep.Exclusive)
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		require.False(t, holds(wch), "the writer holds beside readers")
		rch := pending(t, r3, "k", lockstep.Shared)
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		require.False(t, holds(rch), "a reader passed the waiting writer")

		require.NoError(t, l1.Unlock(ctx))
		require.NoError(t, l2.Unlock(ctx))
		wl := granted(t, wch)
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		require.False(t, holds(rch), "a reader holds beside the writer")
		require.NoError(t, wl.Unlock(ctx))
		rl := granted(t, rch)
		require.NoError(t, rl.Unlock(ctx))
		require.Empty(t, cells(t, s, "k"))
	})
}

// The matrix decides who shares: IX with IX and IS, not with S; SIX with IS
// only. TryLock follows it without waiting.
func TestAccess_TryLockFollowsTheMatrix(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		a, b := newLocker(t, s, nil), newLocker(t, s, nil)
		all := []lockstep.Access{lockstep.Exclusive, lockstep.Shared, lockstep.IntentShared, lockstep.IntentExclusive, lockstep.SharedIntentExclusive}
		for _, held := range all {
			lk, err := lockIn(ctx, a, "k", held)
			require.NoError(t, err)
			for _, asked := range all {
				other, err := b.acquireOne(ctx, "k", asked, true)
				if held.Compatible(asked) {
					require.NoError(t, err, "%v held, %v asked", held, asked)
					require.NoError(t, other.Unlock(ctx))
				} else {
					require.ErrorIs(t, err, lockstep.ErrLocked, "%v held, %v asked", held, asked)
				}
			}
			require.NoError(t, lk.Unlock(ctx))
		}
		require.Empty(t, cells(t, s, "k"))
	})
}

// Two goroutines of one Locker share an id in compatible accesses, each with
// its own owner column (slots 0 and 1); an exclusive request of the same
// Locker waits for both; the slot columns are reused.
func TestAccess_OneLockerSharesThroughSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		l := newLocker(t, s, nil)
		x, err := lockIn(ctx, l, "k", lockstep.IntentExclusive)
		require.NoError(t, err)
		y, err := lockIn(ctx, l, "k", lockstep.IntentShared)
		require.NoError(t, err)
		var owners []string
		for _, c := range cells(t, s, "k") {
			if col, _, ok := strings.Cut(c, "="); ok && strings.HasPrefix(col, "~o/") {
				owners = append(owners, col)
			}
		}
		require.Equal(t, []string{l.ownerCol, l.ownerCol + ".1"}, owners)

		wch := pending(t, l, "k", lockstep.Exclusive)
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		require.False(t, holds(wch))
		require.NoError(t, x.Unlock(ctx))
		require.NoError(t, y.Unlock(ctx))
		wl := granted(t, wch)
		require.NoError(t, wl.Unlock(ctx))
		require.Empty(t, cells(t, s, "k"))
		require.Equal(t, 0, l.turns.Len())
	})
}

// Cells carry the access in their values; an exclusive acquisition writes
// what it always wrote (bytes_test.go pins those bytes).
func TestAccess_CellsNameTheAccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		l := newLocker(t, s, nil)
		lk, err := lockIn(ctx, l, "k", lockstep.SharedIntentExclusive)
		require.NoError(t, err)
		got := cells(t, s, "k")
		require.Len(t, got, 2)
		require.Equal(t, l.ownerCol+"="+lk.Owner()+"\naccess=SIX", got[1])
		require.NoError(t, lk.Unlock(ctx))
	})
}

// Readers among readers keep the fast path: a claim that saw only compatible
// cells in line does not mark the id contended, so the next shared Lock of
// the process writes and checks its cells in one round (2 requests).
func TestAccess_ReadersAmongReadersKeepTheFastPath(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		other := newLocker(t, s, nil)
		held, err := lockIn(ctx, other, "k", lockstep.Shared)
		require.NoError(t, err)
		l := newLocker(t, s, nil)
		for range 2 {
			lk, err := lockIn(ctx, l, "k", lockstep.Shared)
			require.NoError(t, err)
			require.True(t, l.fastPathOK("k"), "a reader beside a reader marked the id contended")
			require.NoError(t, lk.Unlock(ctx))
		}
		require.NoError(t, held.Unlock(ctx))
	})
}
