package queue

import (
	"context"
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

// gatedReads is a model store whose reads wait while the gate is shut.
type gatedReads struct {
	*model.Store
	mu   sync.Mutex
	open chan struct{} // nil while the gate is open; closed to open it
}

func newGatedReads() *gatedReads { return &gatedReads{Store: model.New(&clock.Local{})} }

// shut makes the reads sent from now on wait until reopen.
func (g *gatedReads) shut() {
	g.mu.Lock()
	if g.open == nil {
		g.open = make(chan struct{})
	}
	g.mu.Unlock()
}

// reopen lets every waiting read, and every later one, through.
func (g *gatedReads) reopen() {
	g.mu.Lock()
	if g.open != nil {
		close(g.open)
		g.open = nil
	}
	g.mu.Unlock()
}

func (g *gatedReads) Read(ctx context.Context, table, row string, s lockstep.Slice) ([]lockstep.Cell, error) {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	if open != nil {
		select {
		case <-open:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Store.Read(ctx, table, row, s)
}

// wakeGap is the longest a woken waiter may take to act on its wake-up: it
// acts on at most one per Poll/4 (waker.sleep), so one that arrives just
// after a read of its own waits out the rest of that gap.
const wakeGap = wakePoll/4 + time.Millisecond

// within returns what ch delivers within d (fake time: synctest), or nil.
func within(ch <-chan lockstep.Lock, d time.Duration) lockstep.Lock {
	select {
	case l := <-ch:
		return l
	case <-time.After(d):
		return nil
	}
}

// fourHandoffLockers returns Lockers a, b, c and d over s, with Handoff on
// and wake-ups on one memNet.
func fourHandoffLockers(t *testing.T, s lockstep.Store) [4]*testLocker {
	n := &memNet{handlers: map[string]func([]byte){}}
	var ls [4]*testLocker
	for i, name := range []string{"a", "b", "c", "d"} {
		ls[i] = newHandoffLocker(t, s, n, name, true, nil)
	}
	return ls
}

// lineUp makes A hold x, then B, then each of ws wait behind it; A
// releases and B holds by a claim whose read saw the next waiter. It
// returns B's lock and the waiters' locks as they come.
func lineUp(t *testing.T, a, b *testLocker, ws ...*testLocker) (lockstep.Lock, []chan lockstep.Lock) {
	ctx := context.Background()
	la, err := a.Lock(ctx, "x")
	require.NoError(t, err)
	gotB := make(chan lockstep.Lock, 1)
	go func() {
		lb, err := b.Lock(ctx, "x")
		require.NoError(t, err)
		gotB <- lb
	}()
	got := make([]chan lockstep.Lock, len(ws))
	for i, w := range ws {
		time.Sleep(10 * time.Millisecond)
		got[i] = make(chan lockstep.Lock, 1)
		go func() {
			l, err := w.Lock(ctx, "x")
			require.NoError(t, err)
			got[i] <- l
		}()
	}
	time.Sleep(time.Second + 13*time.Millisecond) // off the polls' grid
	require.NoError(t, la.Unlock(ctx))
	return <-gotB, got
}

// A waiter granted the lock holds on the wake-up alone, with no read on
// Lock's path: C's Lock returns while every read of the store waits. Its
// read of the line, sent beside, tells its release whom to grant next: D,
// which then holds the same way.
func TestGrant_HoldsWithoutAReadAndPassesTheLockOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newGatedReads()
		ls := fourHandoffLockers(t, s)
		ctx := context.Background()
		lb, got := lineUp(t, ls[0], ls[1], ls[2], ls[3])
		time.Sleep(shortHold)
		s.shut()
		require.NoError(t, lb.Unlock(ctx))
		lc := within(got[0], wakeGap)
		if lc == nil {
			t.Fatal("C did not hold on B's grant while reads waited")
		}
		require.Contains(t, cells(t, s.Store, "x"), layout.HandedColumn(lc.Owner())+"="+lc.Owner())
		s.reopen() // C's read of the line, and D's polls, go through
		time.Sleep(shortHold)
		s.shut()
		require.NoError(t, lc.Unlock(ctx))
		ld := within(got[1], wakeGap)
		if ld == nil {
			t.Fatal("D was not granted the lock by C, which held by a grant")
		}
		s.reopen()
		require.NoError(t, ld.Unlock(ctx))
	})
}

// A releaser whose lease lapsed while its handoff was in flight sends no
// grant: its waiter confirms by a read, sent after the handoff landed, and
// holds by it only if the read shows the handed cell and nobody else. With
// the planted GrantWithoutLeaseCheck the releaser grants anyway, and the
// waiter holds with no read of its own. Reads wait from the moment the
// handoff lands. C counts its lease from the wake-up's arrival here (the
// planted HandoffFromRead), so that its own check, on its queue-cell
// write's age, does not decide first: the releaser's check alone does.
func TestGrant_ALapsedReleaserSendsNoGrant(t *testing.T) {
	for _, planted := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			// B's lease window is 2s and it renews every second: a handoff
			// write that takes 2.5s returns after the window.
			s := &slowGated{gatedReads: newGatedReads(), d: 2500 * time.Millisecond}
			n := &memNet{handlers: map[string]func([]byte){}}
			a := newHandoffLocker(t, s, n, "a", true, nil)
			b := newHandoffLocker(t, s, n, "b", true, &TestingKnobs{GrantWithoutLeaseCheck: planted})
			c := newHandoffLocker(t, s, n, "c", true, &TestingKnobs{HandoffFromRead: true})
			ctx := context.Background()
			lb, got := lineUp(t, a, b, c)
			time.Sleep(shortHold)
			require.NoError(t, lb.Unlock(ctx))
			lc := within(got[0], wakeGap)
			if lc != nil {
				require.True(t, planted, "C held with no read, on the grant of a releaser whose lease had lapsed")
			} else {
				require.False(t, planted, "planted: C did not hold on the grant")
			}
			s.reopen()
			if lc == nil {
				lc = <-got[0]
			}
			require.NoError(t, lc.Unlock(ctx))
		})
	}
}

// slowGated applies a handoff after a delay, then shuts the reads' gate.
type slowGated struct {
	*gatedReads
	d time.Duration
}

func (s *slowGated) PutDelete(ctx context.Context, table, row string, ts int64, cols []string, cells ...lockstep.Cell) error {
	if !isHandoff(cells) {
		return s.Store.PutDelete(ctx, table, row, ts, cols, cells...)
	}
	time.Sleep(s.d)
	err := s.Store.PutDelete(ctx, table, row, ts, cols, cells...)
	s.shut()
	return err
}

// slowReads answers every read after d.
type slowReads struct {
	*model.Store
	d time.Duration
}

func (s slowReads) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	time.Sleep(s.d)
	return s.Store.Read(ctx, table, row, sl)
}

// A granted holder's read of the line may be answered after its first
// renewal gave its queue cell up: after a hold of B's longer than Renew,
// C's lease, counted from its queue write B's claim read saw, is due a
// renewal at once. That read still names D, behind C's place, so C's
// release grants D the lock at once instead of leaving it to its poll.
func TestGrant_LineReadAfterTheFirstRenewalStillNamesTheNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := slowReads{Store: model.New(&clock.Local{}), d: 20 * time.Millisecond}
		ls := fourHandoffLockers(t, s)
		ctx := context.Background()
		lb, got := lineUp(t, ls[0], ls[1], ls[2], ls[3])
		time.Sleep(1300 * time.Millisecond) // beyond Renew (1s), within C's window (2s)
		require.NoError(t, lb.Unlock(ctx))
		lc := within(got[0], wakeGap)
		if lc == nil {
			t.Fatal("C did not hold on B's grant")
		}
		time.Sleep(shortHold)
		released := time.Now()
		require.NoError(t, lc.Unlock(ctx))
		ld := <-got[1]
		require.LessOrEqual(t, time.Since(released), wakeGap, "D waited for its poll: C's release named nobody")
		require.NoError(t, ld.Unlock(ctx))
	})
}

// A lock held by a handoff and shared before its first renewal has, as its
// only owner cell, its handed cell, which carries its owner id: leaving, its
// last holder deletes it too, else it would read as another holder staying,
// keep the queue cell, and block the line until both expired (5.6s here).
// Held by a grant, it wakes the waiter its read of the line named, else D
// waits for its poll (441ms here).
func TestGrant_SharedHandedHoldLeavesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := model.New(&clock.Local{})
		ls := fourHandoffLockers(t, s)
		ctx := context.Background()
		lb, got := lineUp(t, ls[0], ls[1], ls[2], ls[3])
		time.Sleep(shortHold)
		require.NoError(t, lb.Unlock(ctx))
		lc := <-got[0]
		_, err := ls[2].Share(lc)
		require.NoError(t, err)
		released := time.Now()
		require.NoError(t, lc.Unlock(ctx))
		ld := <-got[1]
		require.Less(t, time.Since(released), wakePoll, "D waited for C's handed cell to expire")
		require.NoError(t, ld.Unlock(ctx))
	})
}

// A releaser that hands the lock on leaves its process on the slow path
// for the id: its next Lock must not write its owner column again before a
// read shows it clear ahead, or that claim's withdrawal could cover the
// releaser's cell on a replica the handoff has not reached, where a third
// process's read must still meet it (docs/algorithms.md, section 4.12).
// Every holder that hands the lock on set the hint as it began to hold (its
// claim read saw others in line, or it held by a grant), but the hint lasts
// a TTL: here C holds by B's grant for longer than that, then hands the
// lock to D. With the planted HandoffKeepsFastPath, C's process may take
// the fast path at once.
func TestHandoff_TheReleasersProcessTakesTheSlowPathAfterIt(t *testing.T) {
	for _, planted := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			s := newGatedReads()
			n := &memNet{handlers: map[string]func([]byte){}}
			var ls [4]*testLocker
			for i, name := range []string{"a", "b", "c", "d"} {
				ls[i] = newHandoffLocker(t, s, n, name, true, &TestingKnobs{HandoffKeepsFastPath: planted})
			}
			ctx := context.Background()
			lb, got := lineUp(t, ls[0], ls[1], ls[2], ls[3])
			time.Sleep(shortHold)
			require.NoError(t, lb.Unlock(ctx))
			lc := within(got[0], wakeGap)
			if lc == nil {
				t.Fatal("C did not hold on B's handoff")
			}
			time.Sleep(ttl + shortHold)
			require.True(t, ls[2].fastPathOK("x"), "C's hint, set as it began to hold, has lapsed")
			require.NoError(t, lc.Unlock(ctx))
			ld := within(got[1], wakeGap)
			if ld == nil {
				t.Fatal("D did not hold on C's handoff")
			}
			require.Contains(t, cells(t, s.Store, "x"), layout.HandedColumn(ld.Owner())+"="+ld.Owner(), "D holds by the handoff")
			require.Equal(t, planted, ls[2].fastPathOK("x"), "planted %v: C's next Lock of x may take the fast path", planted)
			require.NoError(t, ld.Unlock(ctx))
		})
	}
}
