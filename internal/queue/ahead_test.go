package queue

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
)

// globalTally is a store that counts the requests sent to the global time
// table and, once cut, fails every request: a process that died holding.
type globalTally struct {
	lockstep.Store
	global atomic.Int64
	mu     sync.Mutex
	cut    bool
}

var errCut = errors.New("test: this process is cut off")

func (s *globalTally) pass(table string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cut {
		return errCut
	}
	if table == clock.DefaultGlobalTable {
		s.global.Add(1)
	}
	return nil
}

func (s *globalTally) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if err := s.pass(table); err != nil {
		return err
	}
	return s.Store.Put(ctx, table, row, cells...)
}

func (s *globalTally) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	if err := s.pass(table); err != nil {
		return nil, err
	}
	return s.Store.Read(ctx, table, row, sl)
}

func (s *globalTally) Delete(ctx context.Context, table, row string, ts int64, cols ...string) error {
	if err := s.pass(table); err != nil {
		return err
	}
	return s.Store.Delete(ctx, table, row, ts, cols...)
}

func (s *globalTally) PutDelete(ctx context.Context, table, row string, ts int64, cols []string, cells ...lockstep.Cell) error {
	if err := s.pass(table); err != nil {
		return err
	}
	return s.Store.(lockstep.Mutator).PutDelete(ctx, table, row, ts, cols, cells...)
}

// aheadLocker is a queuelock Locker at EvidenceUse on its own Global,
// through a globalTally, on the manual clock clk.
func aheadLocker(t *testing.T, base lockstep.Store, clk *model.ManualClock, id string, k *TestingKnobs) (*testLocker, *globalTally) {
	t.Helper()
	return aheadLockerOn(t, base, clk, clk, id, k)
}

// aheadLockerOn is aheadLocker with the Global on a clock of its own.
func aheadLockerOn(t *testing.T, base lockstep.Store, clk *model.ManualClock, gclk lockstep.Clock, id string, k *TestingKnobs) (*testLocker, *globalTally) {
	t.Helper()
	s := &globalTally{Store: base}
	g, err := clock.NewGlobal(s, "", gclk)
	require.NoError(t, err)
	l, err := New(s, &Options{ProcessID: id, TTL: 4 * time.Second, Clock: clk, Poll: 10 * time.Millisecond,
		Fencing: g, Evidence: EvidenceUse, TestingKnobs: k})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l, s
}

// twoAheadLockers is two processes' aheadLockers, "a" and "b" (with
// planted defects kb), on one model store and one manual clock a second
// past its start.
func twoAheadLockers(t *testing.T, kb *TestingKnobs) (clk *model.ManualClock, a *testLocker, sa *globalTally, b *testLocker) {
	t.Helper()
	clk = model.NewManualClock(0)
	clk.Advance(time.Second)
	base := model.New(clk)
	a, sa = aheadLocker(t, base, clk, "a", nil)
	b, _ = aheadLocker(t, base, clk, "b", kb)
	return clk, a, sa, b
}

func lockToken(t *testing.T, l *testLocker, id string) (lockstep.Lock, int64) {
	t.Helper()
	lk, err := l.Lock(context.Background(), id)
	require.NoError(t, err)
	return lk, lk.(lockstep.Fenced).Token()
}

// A process that locks an id again within half a lease window of its last
// draw takes its token from the values that draw reserved ahead: no request
// to the global cell, the tokens still rising, and each release recording
// only the tokens handed out (so the next claim's is above the evidence).
func TestAhead_ARelockTakesItsTokenWithoutARequestToTheGlobalCell(t *testing.T) {
	clk := model.NewManualClock(0)
	clk.Advance(time.Second)
	l, s := aheadLocker(t, model.New(clk), clk, "a", nil)
	ctx := context.Background()

	var last int64
	for i := range 5 {
		before := s.global.Load()
		lk, tok := lockToken(t, l, "x")
		require.Greater(t, tok, last, "lock %d", i)
		last = tok
		require.NoError(t, lk.Unlock(ctx))
		want := int64(0)
		if i == 0 {
			want = 2 // the draw beside the first claim: its read and its write
		}
		require.Equal(t, want, s.global.Load()-before, "lock %d: requests to the global cell", i)
		clk.Advance(10 * time.Millisecond)
	}
	require.Equal(t, AheadCounts{Taken: 4, Kept: 4}, l.AheadTaken(), "tokens taken from values drawn ahead, and kept")
	require.Equal(t, last, l.cfg.Fencing.Drawn(), "Drawn counts the values handed out, not the whole block")
}

// Another process's record on the id, read by a claim here, makes this
// process's claims of it draw beside themselves for a TTL: a lock passed
// back and forth takes no value ahead, and draws once per acquisition,
// never again after its claim.
func TestAhead_ALockPassedBetweenProcessesDrawsBesideItsClaims(t *testing.T) {
	_, a, sa, b := twoAheadLockers(t, nil)
	ctx := context.Background()

	lk, _ := lockToken(t, a, "x")
	require.NoError(t, lk.Unlock(ctx))
	lk, tb := lockToken(t, b, "x") // b's draw is after a's block: above it
	require.NoError(t, lk.Unlock(ctx))

	// a's first read showed no evidence: it takes a value ahead, which b's
	// record is above, and draws again after its claim. Its read shows b's
	// evidence, above what a had drawn: its next claims draw beside.
	taken := a.aheadTaken.Load()
	lk, ta := lockToken(t, a, "x")
	require.NoError(t, lk.Unlock(ctx))
	require.Greater(t, ta, tb)
	require.Equal(t, taken+1, a.aheadTaken.Load())
	for i := range 6 {
		l, s := a, sa
		if i%2 == 1 {
			l, s = b, nil
		}
		before, taken := int64(0), l.aheadTaken.Load()
		if s != nil {
			before = s.global.Load()
		}
		lk, tok := lockToken(t, l, "x")
		require.NoError(t, lk.Unlock(ctx))
		require.Greater(t, tok, ta, "round %d", i)
		ta = tok
		require.Equal(t, taken, l.aheadTaken.Load(), "round %d: a lock passed between processes takes no value ahead", i)
		if s != nil {
			require.Equal(t, int64(2), s.global.Load()-before, "round %d: one draw, beside the claim, none after it", i)
		}
	}
}

// A value drawn ahead half a lease window ago or more is not taken: the
// claim draws beside itself.
func TestAhead_ValuesDrawnHalfAWindowAgoAreNotTaken(t *testing.T) {
	clk := model.NewManualClock(0)
	clk.Advance(time.Second)
	l, s := aheadLocker(t, model.New(clk), clk, "a", nil)
	ctx := context.Background()
	lk, first := lockToken(t, l, "x")
	require.NoError(t, lk.Unlock(ctx))
	clk.Advance(l.cfg.Lease.Window()/2 - time.Microsecond)
	lk, tok := lockToken(t, l, "x")
	require.NoError(t, lk.Unlock(ctx))
	require.Equal(t, first+1, tok, "just younger than half a window: taken")
	clk.Advance(time.Microsecond)
	before, taken := s.global.Load(), l.aheadTaken.Load()
	lk, tok = lockToken(t, l, "x")
	require.NoError(t, lk.Unlock(ctx))
	require.Greater(t, tok, first+64)
	require.Equal(t, taken, l.aheadTaken.Load())
	require.Equal(t, int64(2), s.global.Load()-before, "drawn beside the claim")
}

// elapsedShift is a clock whose elapsed time starts an hour before Base's,
// as a clock.Local made an hour earlier would: a Global and a Locker may
// time on two such clocks.
type elapsedShift struct{ *model.ManualClock }

func (c elapsedShift) Elapsed() int64 { return c.ManualClock.Elapsed() + time.Hour.Microseconds() }

// A value drawn ahead is kept only if the claim's read is answered within a
// lease window of the draw's read, even when the claim's own lease is still
// open: here the value is taken just under half a window after its draw,
// the claim's write is held for 0.6 of a window, and the claim draws again
// after it won. The Global times on a clock whose elapsed time starts an
// hour apart from the Locker's, so the window is measured from the draw's
// age, not from a stamp of the other clock.
func TestAhead_AValueDrawnAheadIsKeptOnlyIfTheReadIsAnsweredWithinAWindowOfItsDraw(t *testing.T) {
	clk := model.NewManualClock(0)
	clk.Advance(time.Second)
	gate := locktest.NewPutGate(model.New(clk), DefaultTable)
	l, s := aheadLockerOn(t, gate, clk, elapsedShift{clk}, "a", nil)
	ctx := context.Background()
	lk, first := lockToken(t, l, "x")
	require.NoError(t, lk.Unlock(ctx))
	w := l.cfg.Lease.Window()
	clk.Advance(w * 45 / 100)

	before, taken := s.global.Load(), l.aheadTaken.Load()
	gate.Shut()
	type result struct {
		tok int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		lk, err := l.Lock(ctx, "x")
		if err != nil {
			done <- result{0, err}
			return
		}
		done <- result{lk.(lockstep.Fenced).Token(), lk.Unlock(ctx)}
	}()
	require.NoError(t, gate.AwaitBlocked(10*time.Second, DefaultTable))
	clk.Advance(w * 6 / 10)
	gate.Reopen()
	r := <-done
	require.NoError(t, r.err)
	require.Equal(t, taken+1, l.aheadTaken.Load(), "the value ahead was taken")
	require.Equal(t, int64(2), s.global.Load()-before, "and refused: the claim drew after it won")
	require.Greater(t, r.tok, first+64)
}

// A value drawn ahead that is not above the evidence the winning claim's
// read returned is not kept: B's draw, after A's, is above A's values
// ahead, and A, whose last claim read showed no evidence above its own
// draws, takes one, meets B's evidence in its winning read, and draws
// again.
func TestAhead_AValueDrawnAheadNotAboveTheEvidenceIsDrawnAgain(t *testing.T) {
	clk, a, _, b := twoAheadLockers(t, nil)
	ctx := context.Background()

	lk, _ := lockToken(t, a, "x")
	require.NoError(t, lk.Unlock(ctx))
	clk.Advance(10 * time.Millisecond)
	lb, tb := lockToken(t, b, "x")
	_, err := a.TryLock(ctx, "x")
	require.ErrorIs(t, err, lockstep.ErrLocked)
	require.NoError(t, lb.Unlock(ctx))
	lk, ta := lockToken(t, a, "x")
	require.NoError(t, lk.Unlock(ctx))
	require.Greater(t, ta, tb)
	c := a.AheadTaken()
	require.Equal(t, int64(1), c.BelowEvidence)
	require.Zero(t, c.Kept)
}

// aheadPastWindow runs the schedule the window on values drawn ahead is
// for: B draws ahead; A, another process, draws later, holds, and dies
// holding; B's claim after A's cells expired reads no trace of A's token.
// It returns A's token and B's, and what B's AheadTaken counted.
func aheadPastWindow(t *testing.T, kb *TestingKnobs) (tokenA, tokenB int64, c AheadCounts) {
	clk, a, sa, b := twoAheadLockers(t, kb)
	ctx := context.Background()

	lk, _ := lockToken(t, b, "x") // b's draw beside its claim reserves values ahead
	require.NoError(t, lk.Unlock(ctx))
	clk.Advance(100 * time.Millisecond)
	_, tokenA = lockToken(t, a, "x")
	sa.mu.Lock()
	sa.cut = true // a dies holding: no renewal, no release
	sa.mu.Unlock()

	// b looks at x while a's cells live (its TryLock fails), so it still
	// remembers the id when it claims after they expired.
	clk.Advance(2 * time.Second)
	_, err := b.TryLock(ctx, "x")
	require.ErrorIs(t, err, lockstep.ErrLocked)
	clk.Advance(3 * time.Second)
	lk, tokenB = lockToken(t, b, "x")
	require.NoError(t, lk.Unlock(ctx))
	return tokenA, tokenB, b.AheadTaken()
}

// A value drawn ahead is kept only while a lease counted from its draw's
// read would be open: B's values, drawn before A's token, are below it, and
// nothing of A's is left for B's read to meet. Planted (AheadPastWindow), B
// keeps one, below A's token: a fenced resource would take B for the stale
// holder, and A's late writes would pass.
func TestAhead_AValueDrawnAheadIsKeptOnlyWithinALeaseWindowOfItsDraw(t *testing.T) {
	ta, tb, c := aheadPastWindow(t, nil)
	require.Greater(t, tb, ta)
	require.Zero(t, c.Kept, "no value drawn ahead kept")
	ta, tb, c = aheadPastWindow(t, &TestingKnobs{AheadPastWindow: true})
	require.Less(t, tb, ta, "planted: the old value is kept")
	require.Equal(t, int64(1), c.Kept)
}
