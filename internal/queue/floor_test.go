package queue

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
)

// A hot id: thousands of acquisitions within one TTL, one a millisecond,
// taken in turn by three Lockers. Each read starts at the older of the oldest
// live queue cell its Locker saw last time and 2×MaxClockSkew before the
// read, so it steps over the tombstones of the acquisitions of that lag and
// one owner tombstone per Locker — the same number after 3,300 acquisitions
// as after 300. (A floor that trails the present by a TTL, as the
// documents' "now − TTL" does, would step over all of them.)
// churn takes "hot" n times in access a, by lockers in turn, one
// acquisition each period of (fake) time, and returns the most tombstones
// one read of s stepped over meanwhile.
func churn(t *testing.T, s *model.Store, lockers []*testLocker, a lockstep.Access, n int, period time.Duration) int64 {
	t.Helper()
	ctx := context.Background()
	s.ResetStats()
	for i := range n {
		h, err := lockIn(ctx, lockers[i%len(lockers)], "hot", a)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(period)
	}
	return s.Stats().MaxTombstonesPerRead
}

func TestFloor_HotIDReadCostDoesNotGrowWithHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		const skew, period = 10 * time.Millisecond, time.Millisecond
		var lockers []*testLocker
		for range 3 {
			l, err := New(s, &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, MaxClockSkew: skew})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Close(ctx) })
			lockers = append(lockers, l)
		}
		first := churn(t, s, lockers, lockstep.Exclusive, 300, period)
		churn(t, s, lockers, lockstep.Exclusive, 3000, period)
		last := churn(t, s, lockers, lockstep.Exclusive, 300, period)
		t.Logf("max tombstones per read: first 300 acquisitions %d, after 3,300 more %d", first, last)
		// The queue tombstones of the lag plus those since the Locker's
		// previous read (where its floor was set), and at most one owner
		// tombstone per Locker.
		if bound := int64((2*skew+time.Duration(len(lockers))*period)/period) + 1 + int64(len(lockers)); last > bound || first > bound {
			t.Fatalf("reads stepped over %d (first) and %d (last) tombstones, want at most %d", first, last, bound)
		}
	})
}

// A waiter that waits many TTLs renews its queue cell: a fresh Locker (whose
// floor comes from the floor cell, raised by claims meanwhile) still sees it,
// finds the lock busy, and queues behind it.
func TestFloor_LongWaiterStaysVisibleAndFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		a, b := newLocker(t, s, nil), newLocker(t, s, nil)
		// Raise the floor well above zero first.
		for range 50 {
			h, err := a.Lock(ctx, "id")
			if err != nil {
				t.Fatal(err)
			}
			_ = h.Unlock(ctx)
			time.Sleep(100 * time.Millisecond)
		}
		ha, err := a.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 2)
		take := func(l *testLocker, name string) {
			h, err := l.Lock(ctx, "id")
			if err != nil {
				t.Error(err)
				return
			}
			got <- name
			_ = h.Unlock(ctx)
		}
		go take(b, "long waiter")
		time.Sleep(5 * ttl)
		c := newLocker(t, s, nil)
		if _, err := c.TryLock(ctx, "id"); !errors.Is(err, lockstep.ErrLocked) {
			t.Fatalf("fresh TryLock = %v, want ErrLocked", err)
		}
		go take(c, "fresh arrival")
		time.Sleep(time.Second)
		_ = ha.Unlock(ctx)
		if first := <-got; first != "long waiter" {
			t.Fatalf("first to acquire after the holder: %s, want the long waiter", first)
		}
		<-got
	})
}

// A Locker rewrites one owner column per id, so a hundred acquisitions leave
// one owner tombstone, not a hundred.
func TestOwnerCells_OneColumnPerLocker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		l := newLocker(t, s, nil)
		for range 100 {
			h, err := l.Lock(ctx, "id")
			if err != nil {
				t.Fatal(err)
			}
			_ = h.Unlock(ctx)
		}
		if _, err := s.Read(ctx, DefaultTable, "id", lockstep.Slice{From: layout.OwnerPrefix}); err != nil {
			t.Fatal(err)
		}
		if n := s.Stats().LastReadTombstones; n != 1 {
			t.Fatalf("owner region holds %d tombstones after 100 acquisitions, want 1", n)
		}
	})
}

// Two Lockers given one ProcessID (a misconfiguration, or a restarted process
// whose predecessor is only paused) still have distinct owner cells, so they
// still exclude each other.
func TestOwnerCells_LockersSharingAProcessIDExcludeEachOther(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		open := func() *testLocker {
			l, err := New(s, &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, ProcessID: "same"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Close(ctx) })
			return l
		}
		a, b := open(), open()
		if a.ownerCol == b.ownerCol || !strings.HasPrefix(a.ownerCol, layout.OwnerPrefix+"same/") {
			t.Fatalf("owner columns %q and %q", a.ownerCol, b.ownerCol)
		}
		h, err := a.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.TryLock(ctx, "id"); !errors.Is(err, lockstep.ErrLocked) {
			t.Fatalf("TryLock beside a holder sharing the ProcessID = %v, want ErrLocked", err)
		}
		wctx, cancel := context.WithTimeout(ctx, 3*ttl)
		defer cancel()
		if _, err := b.Lock(wctx, "id"); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Lock beside a holder sharing the ProcessID = %v, want DeadlineExceeded", err)
		}
		_ = h.Unlock(ctx)
		hb, err := b.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		_ = hb.Unlock(ctx)
	})
}

// A waiter whose name some process's floor has passed (its write was in
// flight longer than MaxClockSkew, or clocks were further apart) is invisible
// to that process. The claims publish floors, and every read returns the
// published one: the waiter sees its name passed and takes a new place at or
// above it, where everyone sees it. With the check switched off
// (IgnorePublishedFloor) it keeps its hidden place.
func TestFloor_WaiterBelowThePublishedFloorTakesAVisiblePlace(t *testing.T) {
	for _, c := range []struct {
		name    string
		knobs   *TestingKnobs
		visible bool
	}{{"shipped", nil, true}, {"IgnorePublishedFloor", &TestingKnobs{IgnorePublishedFloor: true}, false}} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				s := model.New(&clock.Local{})
				a, b := newLocker(t, s, nil), newPlanted(t, s, nil, c.knobs)
				ha, err := a.Lock(ctx, "id")
				if err != nil {
					t.Fatal(err)
				}
				wctx, cancel := context.WithCancel(ctx)
				defer cancel()
				go func() { _, _ = b.Lock(wctx, "id") }()
				time.Sleep(time.Second)
				name := waiterName(t, s, b)
				// Some process that read the id a second from now publishes
				// its floor, one second above the waiter's name.
				floor := name + time.Second.Microseconds()
				if err := s.Put(ctx, DefaultTable, "id", layout.FloorCell(floor, 0)); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Second)
				got := waiterName(t, s, b)
				if visible := got >= floor; visible != c.visible {
					t.Fatalf("waiter named %d, published floor %d: visible %v, want %v", got, floor, visible, c.visible)
				}
				cancel()
				_ = ha.Unlock(ctx)
			})
		})
	}
}

// waiterName returns the enqueue time of l's one queue cell of "id".
func waiterName(t *testing.T, s lockstep.Store, l *testLocker) int64 {
	t.Helper()
	cs, err := s.Read(context.Background(), DefaultTable, "id", lockstep.Slice{From: "0"})
	if err != nil {
		t.Fatal(err)
	}
	var found []int64
	for _, c := range cs {
		if e, err := layout.Parse(c.Column, c.Value); err == nil && e.Kind == layout.Queue && strings.HasPrefix(e.Owner, l.Process()+".") {
			found = append(found, e.Time)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s has %d queue cells, want 1", l.Process(), len(found))
	}
	return found[0]
}
