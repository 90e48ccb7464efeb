package queue

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
)

const ttl = 6 * time.Second // window (6s − 1s − 1s)/2 = 2s with the default MaxServerSkew

func newLocker(t *testing.T, s lockstep.Store, c lockstep.Clock) *testLocker {
	t.Helper()
	return newPlanted(t, s, c, nil)
}

// newPlanted is newLocker with planted defects k (nil for none).
func newPlanted(t *testing.T, s lockstep.Store, c lockstep.Clock, k *TestingKnobs) *testLocker {
	t.Helper()
	l, err := New(s, &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, Clock: c, TestingKnobs: k})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// cells returns every live cell of id's partition, floor excepted.
func cells(t *testing.T, s lockstep.Store, id string) []string {
	t.Helper()
	cs, err := s.Read(context.Background(), DefaultTable, id, lockstep.Slice{From: "0"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cs {
		if c.Column == layout.FloorColumn {
			continue
		}
		if strings.HasPrefix(c.Column, layout.OwnerPrefix) || layout.InIntentionRange(c.Column) {
			out = append(out, c.Column+"="+string(c.Value)) // the value names the owner
			continue
		}
		out = append(out, c.Column)
	}
	return out
}

// isQueueColumn reports whether col names a queue cell.
func isQueueColumn(col string) bool {
	_, _, err := layout.ParseQueueColumn(col)
	return err == nil
}

func TestQueueLock_CancelledWaiterLeavesNoCell(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := model.New(&clock.Local{})
		a, b := newLocker(t, s, nil), newLocker(t, s, nil)
		la, err := a.Lock(context.Background(), "id")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*ttl) // longer than a TTL: the waiter renews meanwhile
		defer cancel()
		if _, err := b.Lock(ctx, "id"); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Lock = %v, want DeadlineExceeded", err)
		}
		// The holder, past its first renewal, keeps its owner cell alone
		// (its queue cell went with that renewal: part.renew).
		got := cells(t, s, "id")
		if len(got) != 1 || !strings.Contains(got[0], la.Owner()) {
			t.Fatalf("cells after cancelled wait = %v, want only the holder's owner cell", got)
		}
		_ = la.Unlock(context.Background())
		if got := cells(t, s, "id"); len(got) != 0 {
			t.Fatalf("cells after release = %v", got)
		}
	})
}

// acquireOrder starts Lock calls and returns a channel receiving each
// locker's name as it acquires; each holds until release is closed.
func acquireInto(ctx context.Context, l *testLocker, name string, order chan<- string, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		h, err := l.Lock(ctx, "id")
		if err != nil {
			order <- "error: " + err.Error()
			return
		}
		order <- name
		_ = h.Unlock(ctx)
	}()
}

func TestQueueLock_WaiterKeepsPlaceFor5TTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		a, b, c := newLocker(t, s, nil), newLocker(t, s, nil), newLocker(t, s, nil)
		la, _ := a.Lock(ctx, "id")
		order := make(chan string, 2)
		var wg sync.WaitGroup
		acquireInto(ctx, b, "b", order, &wg)
		time.Sleep(time.Second)
		acquireInto(ctx, c, "c", order, &wg)
		time.Sleep(5 * ttl) // b's queue cell would have expired 5 times over without renewal
		if err := la.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if first, second := <-order, <-order; first != "b" || second != "c" {
			t.Fatalf("order = %s, %s; want b, c", first, second)
		}
	})
}

func TestQueueLock_LaggingClockCannotCutInFrontOfSeenWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		a, b := newLocker(t, s, nil), newLocker(t, s, nil)
		lagging := newLocker(t, s, clock.Offset{Base: &clock.Local{}, By: -10 * time.Second})
		la, _ := a.Lock(ctx, "id")
		order := make(chan string, 2)
		var wg sync.WaitGroup
		acquireInto(ctx, b, "b", order, &wg)
		time.Sleep(time.Second)
		// The lagging process reads the queue (its TryLock fails), so it has
		// seen b's place; its clock is 10 s behind b's queue time.
		if _, err := lagging.TryLock(ctx, "id"); !errors.Is(err, lockstep.ErrLocked) {
			t.Fatalf("TryLock = %v, want ErrLocked", err)
		}
		acquireInto(ctx, lagging, "lagging", order, &wg)
		time.Sleep(time.Second)
		_ = la.Unlock(ctx)
		wg.Wait()
		if first, second := <-order, <-order; first != "b" || second != "lagging" {
			t.Fatalf("order = %s, %s; want b, lagging", first, second)
		}
	})
}

func TestQueueLock_ReadsStepOverNoMoreTombstonesAfter10000Acquisitions(t *testing.T) {
	measure := func(n int) int64 {
		var worst int64
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s := model.New(&clock.Local{})
			l := newLocker(t, s, nil)
			for range n {
				h, err := l.Lock(ctx, "hot")
				if err != nil {
					t.Fatal(err)
				}
				_ = h.Unlock(ctx)
				// One acquisition a second, so the fresh process below
				// starts from the floor cell the claims kept raising.
				time.Sleep(time.Second)
			}
			s.ResetStats()
			// A fresh process reads the floor, then the queue.
			h, err := newLocker(t, s, nil).TryLock(ctx, "hot")
			if err != nil {
				t.Fatal(err)
			}
			_ = h.Unlock(ctx)
			worst = s.Stats().MaxTombstonesPerRead
		})
		return worst
	}
	few, many := measure(10), measure(10_000)
	t.Logf("max tombstones per read: after 10 acquisitions %d, after 10,000 %d", few, many)
	if many > few {
		t.Fatalf("reads after 10,000 acquisitions step over %d tombstones, after 10 over %d", many, few)
	}
}

func TestQueueLock_OneRemoteContenderPerProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		holder, crowd := newLocker(t, s, nil), newLocker(t, s, nil)
		h, _ := holder.Lock(ctx, "id")
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l, err := crowd.Lock(ctx, "id")
				if err == nil {
					_ = l.Unlock(ctx)
				}
			}()
		}
		time.Sleep(2 * time.Second)
		if got := cells(t, s, "id"); len(got) != 2 { // holder's owner cell (its queue cell went with its first renewal) + one queue cell of crowd
			t.Fatalf("cells with 8 goroutines of one process waiting = %v, want 2", got)
		}
		_ = h.Unlock(ctx)
		wg.Wait()
	})
}

func TestQueueLock_CloseReleasesHeldAndEndsWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		a, b := newLocker(t, s, nil), newLocker(t, s, nil)
		if _, err := a.Lock(ctx, "x"); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() { _, err := a.Lock(ctx, "y2"); errc <- err }()
		hy, _ := b.Lock(ctx, "y")
		go func() { _, err := b.Lock(ctx, "y"); errc <- err }()
		synctest.Wait()
		if err := b.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; err != nil && !errors.Is(err, lockstep.ErrClosed) {
			t.Fatalf("wait ended by Close = %v, want ErrClosed", err)
		}
		if err := <-errc; err != nil && !errors.Is(err, lockstep.ErrClosed) {
			t.Fatalf("second = %v", err)
		}
		_ = hy
		if err := a.Close(ctx); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"x", "y", "y2"} {
			if got := cells(t, s, id); len(got) != 0 {
				t.Fatalf("cells of %s after Close = %v", id, got)
			}
		}
		if _, err := a.Lock(ctx, "x"); !errors.Is(err, lockstep.ErrClosed) {
			t.Fatalf("Lock after Close = %v, want ErrClosed", err)
		}
	})
}

func TestNew_RefusesBadOptionsAndWritesNothing(t *testing.T) {
	s := model.New(model.NewManualClock(0))
	cases := map[string]*Options{
		"zero TTL is default, negative refused": {TTL: -time.Second},
		"fractional TTL":                        {TTL: 1500 * time.Millisecond},
		"renew above half the lease window":     {TTL: 6 * time.Second, Renew: 1500 * time.Millisecond},
		"negative renew":                        {Renew: -1},
		"unsafe table":                          {Table: "locks; DROP TABLE x"},
		"upper-case table":                      {Table: "Locks"},
		"bad process id":                        {ProcessID: "a/b"},
		"negative poll":                         {Poll: -1},
		"negative max clock skew":               {MaxClockSkew: -1},
		"max clock skew at TTL/2":               {TTL: 2 * time.Second, MaxClockSkew: time.Second},
	}
	for name, o := range cases {
		if _, err := New(s, o); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("%s: New = %v, want ErrInvalidConfig", name, err)
		}
	}
	if _, err := New(nil, nil); !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Errorf("nil store: New = %v, want ErrInvalidConfig", err)
	}
	l, err := New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"", strings.Repeat("x", lockstep.MaxIDLen+1)} {
		if _, err := l.TryLock(context.Background(), id); !errors.Is(err, lockstep.ErrInvalidID) {
			t.Errorf("TryLock(%.10q) = %v", id, err)
		}
	}
	if st := s.Stats(); st.Puts+st.Deletes+st.Reads != 0 {
		t.Fatalf("bad input touched the store: %+v", st)
	}
}
