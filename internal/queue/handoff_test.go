package queue

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
)

// mutCount is a model store that counts its one-request handoffs.
type mutCount struct {
	*model.Store
	n atomic.Int32
}

// PutDelete counts the handoffs among the mutations: a holder's first
// renewal is a PutDelete too (its owner cell, its queue cell's tombstone).
func (m *mutCount) PutDelete(ctx context.Context, table, row string, ts int64, cols []string, cells ...lockstep.Cell) error {
	if isHandoff(cells) {
		m.n.Add(1)
	}
	return m.Store.PutDelete(ctx, table, row, ts, cols, cells...)
}

// isHandoff reports whether a PutDelete writes a handed cell: a releaser's
// handoff (handoff.go), not a renewal (part.renew).
func isHandoff(cells []lockstep.Cell) bool {
	for _, c := range cells {
		if e, err := layout.Parse(c.Column, c.Value); err == nil && layout.IsHandedFor(c.Column, e.Owner) {
			return true
		}
	}
	return false
}

func newHandoffLocker(t *testing.T, s lockstep.Store, n *memNet, name string, on bool, k *TestingKnobs) *testLocker {
	t.Helper()
	l, err := New(s, &Options{TTL: ttl, Renew: time.Second, Poll: wakePoll, SlowPoll: 2 * time.Second, ProcessID: name,
		Wake: &Wake{Transport: memTransport{n, name}, Key: wakeKey}, Handoff: on, TestingKnobs: k})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// handedRun: A holds, B then C wait; A releases, B holds (its claim saw C
// behind it) for shortHold and releases. It returns C's lock, the time from
// B's release to C's acquisition, and the live cells right after C
// acquired.
func handedRun(t *testing.T, s lockstep.Store, n *memNet, on bool) (lockstep.Lock, time.Duration, []string) {
	return handedRunKnobs(t, s, n, on, nil, shortHold)
}

// shortHold is B's hold in handedRun: C's lease counts from the queue-cell
// write B's claim read (C rewrites it every Renew), so a hold shorter than
// Renew leaves C's first renewal — which writes C's owner cell — due after
// the cells are read. Its odd milliseconds keep B's release off the grid of
// C's polls (multiples of wakePoll/4 from its start): a poll at the instant
// of the release would race the wake-up in fake time.
const shortHold = 300*time.Millisecond + 29*time.Millisecond

// handedRunKnobs is handedRun with planted defects k in C and B holding for
// hold.
func handedRunKnobs(t *testing.T, s lockstep.Store, n *memNet, on bool, k *TestingKnobs, hold time.Duration) (lockstep.Lock, time.Duration, []string) {
	a := newHandoffLocker(t, s, n, "a", on, nil)
	b := newHandoffLocker(t, s, n, "b", on, nil)
	c := newHandoffLocker(t, s, n, "c", on, k)
	ctx := context.Background()
	la, err := a.Lock(ctx, "x")
	require.NoError(t, err)
	gotB, gotC := make(chan lockstep.Lock, 1), make(chan lockstep.Lock, 1)
	var atC time.Time
	var cellsC []string
	go func() {
		lb, err := b.Lock(ctx, "x")
		require.NoError(t, err)
		gotB <- lb
	}()
	time.Sleep(10 * time.Millisecond)
	go func() {
		lc, err := c.Lock(ctx, "x")
		require.NoError(t, err)
		atC, cellsC = time.Now(), cells(t, s, "x")
		gotC <- lc
	}()
	time.Sleep(time.Second + 13*time.Millisecond) // off the polls' grid too
	require.NoError(t, la.Unlock(ctx))
	lb := <-gotB
	time.Sleep(hold)
	released := time.Now()
	require.NoError(t, lb.Unlock(ctx))
	lc := <-gotC
	return lc, atC.Sub(released), cellsC
}

func TestHandoff_OneRequestMakesTheNextWaiterTheOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &mutCount{Store: model.New(&clock.Local{})}
		n := &memNet{handlers: map[string]func([]byte){}}
		lc, d, live := handedRun(t, s, n, true)
		require.Zero(t, d, "woken, C reads once and holds")
		require.Equal(t, int32(1), s.n.Load(), "B's release is one PutDelete; A's claim saw nobody behind it")
		require.Equal(t, []string{live[0], layout.HandedColumn(lc.Owner()) + "=" + lc.Owner()}, live, "C holds by the handed cell B wrote for it, beside its queue cell: it wrote no owner cell")
		require.NoError(t, lc.Unlock(context.Background()))
		require.Empty(t, cells(t, s, "x"), "C's release deletes its handed cell too")
	})
}

func TestHandoff_OffByDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &mutCount{Store: model.New(&clock.Local{})}
		n := &memNet{handlers: map[string]func([]byte){}}
		lc, _, live := handedRun(t, s, n, false)
		require.Zero(t, s.n.Load())
		require.NotContains(t, live, layout.HandedColumn(lc.Owner())+"="+lc.Owner())
		require.NoError(t, lc.Unlock(context.Background()))
	})
}

// The releaser "dies" between its write and the wake-up (every wake-up
// lost): C finds the handed cell by its own poll, claims as usual, and the
// claim counts the handed cell as its own.
func TestHandoff_HandedCellFoundByPollingIsClaimed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &mutCount{Store: model.New(&clock.Local{})}
		n := &memNet{handlers: map[string]func([]byte){}, lose: true}
		lc, d, _ := handedRun(t, s, n, true)
		require.Equal(t, int32(1), s.n.Load())
		require.Positive(t, d)
		require.LessOrEqual(t, d, wakePoll, "C, next in line, polls every Poll")
		require.NoError(t, lc.Unlock(context.Background()))
		require.Empty(t, cells(t, s, "x"))
	})
}

// A handed cell is the named waiter's claim and every other acquisition's
// obstacle: nobody else reads it as free or wins beside it.
func TestHandoff_AHandedCellIsAHolderForEveryoneElse(t *testing.T) {
	w, y := "w.1", "y.1"
	v := view{owners: []layout.Entry{{Column: layout.HandedColumn(w), Kind: layout.Owner, Owner: w}}}
	ycol := layout.OwnerColumn("y", 1)
	require.True(t, v.blockedBy(y, ycol, lockstep.Exclusive))
	require.False(t, v.blockedBy(w, layout.OwnerColumn("w", 1), lockstep.Exclusive))
	require.True(t, v.won(w, layout.OwnerColumn("w", 1), lockstep.Exclusive))
	v.owners = append(v.owners, layout.Entry{Column: ycol, Kind: layout.Owner, Owner: y})
	require.False(t, v.won(y, ycol, lockstep.Exclusive), "the handed cell conflicts with y's claim")
	require.False(t, v.won(w, layout.OwnerColumn("w", 1), lockstep.Exclusive), "y's cell conflicts with w's")

	synctest.Test(t, func(t *testing.T) {
		s := model.New(&clock.Local{})
		n := &memNet{handlers: map[string]func([]byte){}}
		other := newHandoffLocker(t, s, n, "y", true, nil)
		h := layout.OwnerCell(layout.HandedColumn(w), w, lockstep.Exclusive, 1, ttl)
		require.NoError(t, s.Put(context.Background(), DefaultTable, "x", h))
		_, err := other.TryLock(context.Background(), "x")
		require.ErrorIs(t, err, lockstep.ErrLocked)
	})
}

// A waiter that leaves tombstones its handed column above every timestamp
// of its queue cell, so a handoff naming it that arrives later is dead.
func TestHandoff_AWaiterThatLeftCannotBeHandedTheLock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := model.New(&clock.Local{})
		n := &memNet{handlers: map[string]func([]byte){}}
		a := newHandoffLocker(t, s, n, "a", true, nil)
		b := newHandoffLocker(t, s, n, "b", true, nil)
		ctx := context.Background()
		la, err := a.Lock(ctx, "x")
		require.NoError(t, err)
		var qts int64
		var owner string
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { _, err := b.Lock(wctx, "x"); done <- err }()
		time.Sleep(100 * time.Millisecond)
		cs, err := s.Read(ctx, DefaultTable, "x", lockstep.Slice{From: "0"})
		require.NoError(t, err)
		for _, c := range cs {
			if _, o, err := layout.ParseQueueColumn(c.Column); err == nil && o != la.Owner() {
				qts, owner = c.Timestamp, o
			}
		}
		require.NotEmpty(t, owner)
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		// A release that read B's queue cell before B left hands it over now.
		h := layout.OwnerCell(layout.HandedColumn(owner), owner, lockstep.Exclusive, qts, ttl)
		require.NoError(t, s.PutDelete(ctx, DefaultTable, "x", a.ts.Next(), nil, h))
		require.NotContains(t, cells(t, s, "x"), layout.HandedColumn(owner))
		require.NoError(t, la.Unlock(ctx))
	})
}

func TestOptions_HandoffNeedsWake(t *testing.T) {
	s := model.New(&clock.Local{})
	_, err := New(s, &Options{Handoff: true})
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	require.ErrorContains(t, err, "Handoff")
	require.ErrorContains(t, err, "set Wake")
}

func TestHandoffFrom_RoundTrips(t *testing.T) {
	for _, grant := range []bool{false, true} {
		ts, g := parseHandoffFrom(handoffWakeFrom(42, grant))
		require.Equal(t, int64(42), ts)
		require.Equal(t, grant, g)
	}
	for _, from := range []string{layout.QueueColumn(42, "a.1"), "handoff/x", "handoff/-3", "grant/", "grant/0", "grants/5"} {
		ts, g := parseHandoffFrom(from)
		require.Zero(t, ts, from)
		require.False(t, g, from)
	}
}

// slowHandoff applies a handoff only after a delay and returns at once
// after: a handoff write that took that long to land.
type slowHandoff struct {
	*model.Store
	d time.Duration
}

func (s slowHandoff) PutDelete(ctx context.Context, table, row string, ts int64, cols []string, cells ...lockstep.Cell) error {
	if isHandoff(cells) {
		time.Sleep(s.d)
	}
	return s.Store.PutDelete(ctx, table, row, ts, cols, cells...)
}

// The woken waiter's lease counts from its queue-cell write that the
// releaser read, not from its own confirming read or the grant's arrival: a
// handoff whose write landed more than a lease window (2s here) after that
// queue write is neither taken as a grant nor confirmed, and the waiter
// claims with an owner cell of its own. With the planted HandoffFromRead
// (its lease counted from the grant's arrival) it holds by the handed cell
// alone, long after the handoff was sent.
func TestHandoff_ConfirmationCountsFromTheQueueWrite(t *testing.T) {
	for _, k := range []*TestingKnobs{nil, {HandoffFromRead: true}} {
		synctest.Test(t, func(t *testing.T) {
			s := slowHandoff{Store: model.New(&clock.Local{}), d: 1500 * time.Millisecond}
			n := &memNet{handlers: map[string]func([]byte){}}
			lc, _, live := handedRunKnobs(t, s, n, true, k, time.Second+29*time.Millisecond)
			handed := layout.HandedColumn(lc.Owner()) + "=" + lc.Owner()
			require.Contains(t, live, handed)
			if k != nil {
				require.Len(t, live, 2, "planted %+v: C holds by the handed cell alone (and its queue cell): %v", *k, live)
			} else {
				require.Len(t, live, 3, "C's lease from its queue write (2.5s ago) had lapsed: it claimed with its own owner cell: %v", live)
			}
			require.NoError(t, lc.Unlock(context.Background()))
		})
	}
}

// A holder that saw a handed cell naming it gives that column up with its
// place in line, at its first renewal: a releaser's handoff retried while
// it holds (the first try timed out, yet landed) is then dead on arrival,
// as it is for a waiter that left. With the planted HolderKeepsHandedColumn
// the retried write stands, live, as an owner cell naming the holder.
func TestHandoff_AHolderGivesItsHandedColumnUpWithItsQueueCell(t *testing.T) {
	for _, planted := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			s := model.New(&clock.Local{})
			n := &memNet{handlers: map[string]func([]byte){}}
			lc, _, _ := handedRunKnobs(t, s, n, true, &TestingKnobs{HolderKeepsHandedColumn: planted}, shortHold)
			ctx := context.Background()
			col := layout.HandedColumn(lc.Owner())
			var handed lockstep.Cell
			cs, err := s.Read(ctx, DefaultTable, "x", lockstep.Slice{From: "0"})
			require.NoError(t, err)
			for _, c := range cs {
				if c.Column == col {
					handed = c
				}
			}
			require.NotZero(t, handed.Timestamp, "C holds by the handed cell B wrote")
			time.Sleep(2 * time.Second) // past C's first renewal (Renew 1s)
			if !planted {
				require.NotContains(t, cells(t, s, "x"), col+"="+lc.Owner(), "given up with the queue cell")
			}
			// B's handoff, written again with the timestamp it had.
			retry := layout.OwnerCell(col, lc.Owner(), lockstep.Exclusive, handed.Timestamp, ttl)
			require.NoError(t, s.PutDelete(ctx, DefaultTable, "x", handed.Timestamp, nil, retry))
			if planted {
				require.Contains(t, cells(t, s, "x"), col+"="+lc.Owner(), "planted: the retried handoff stands")
			} else {
				require.NotContains(t, cells(t, s, "x"), col+"="+lc.Owner(), "the retried handoff is dead on arrival")
			}
			require.NoError(t, lc.Unlock(ctx))
		})
	}
}
