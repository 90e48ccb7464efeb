package queue

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// counting counts the requests that reach a store.
type counting struct {
	lockstep.Store
	puts, reads, deletes atomic.Int64
}

func (c *counting) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	c.puts.Add(1)
	return c.Store.Put(ctx, table, row, cells...)
}

func (c *counting) Delete(ctx context.Context, table, row string, ts int64, cols ...string) error {
	c.deletes.Add(1)
	return c.Store.Delete(ctx, table, row, ts, cols...)
}

func (c *counting) Read(ctx context.Context, table, row string, s lockstep.Slice) ([]lockstep.Cell, error) {
	c.reads.Add(1)
	return c.Store.Read(ctx, table, row, s)
}

func (c *counting) total() int64 { return c.puts.Load() + c.reads.Load() + c.deletes.Load() }

// lockUnlock takes and releases id once and returns the requests it made.
func lockUnlock(t *testing.T, l *testLocker, c *counting) int64 {
	t.Helper()
	before := c.total()
	h, err := l.Lock(context.Background(), "id")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c.total() - before
}

func TestFastPath_UncontendedLockUnlockIsThreeRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &counting{Store: model.New(&clock.Local{})}
		l := newLocker(t, c, nil)
		// The first acquisition also reads the floor cell (in parallel with
		// its write); later ones within a TTL do not, and carry the floor
		// they learned in their put.
		if n := lockUnlock(t, l, c); n != 4 {
			t.Fatalf("first Lock+Unlock: %d requests, want 4 (put ∥ floor read, read, delete)", n)
		}
		for i := range 3 {
			if n := lockUnlock(t, l, c); n != 3 {
				t.Fatalf("Lock+Unlock %d: %d requests, want 3 (put, read, delete)", i+2, n)
			}
		}
	})
}

func TestFastPath_SlowPathIsTheDocuments(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &counting{Store: model.New(&clock.Local{})}
		l, err := New(c, &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, NoFastPath: true})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close(context.Background())
		lockUnlock(t, l, c)
		if n := lockUnlock(t, l, c); n != 5 {
			t.Fatalf("Lock+Unlock without the fast path: %d requests, want 5 (enqueue, read, claim, read, delete)", n)
		}
	})
}

// A fast claim that finds the lock held withdraws its owner cell, keeps its
// queue cell as its place, and the next Lock of that id within a TTL takes
// the slow path.
func TestFastPath_ContendedArrivalWaitsInLineAndTakesSlowPathNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := model.New(&clock.Local{})
		a, b := newLocker(t, s, nil), newLocker(t, s, nil)
		ha, err := a.Lock(context.Background(), "id")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			h, err := b.Lock(ctx, "id")
			if err == nil {
				err = h.Unlock(context.Background())
			}
			done <- err
		}()
		synctest.Wait()
		got := cells(t, s, "id")
		if len(got) != 3 {
			t.Fatalf("cells while b waits = %v, want a's two and b's queue cell", got)
		}
		if b.fastPathOK("id") {
			t.Fatal("b saw id contended but would take the fast path again")
		}
		cancel()
		<-done
		if err := ha.Unlock(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(ttl)
		if !b.fastPathOK("id") {
			t.Fatal("a TTL later b still avoids the fast path")
		}
	})
}

// failing fails the requests its predicate picks while on.
type failing struct {
	lockstep.Store
	on         atomic.Bool
	failPut    func(cells []lockstep.Cell) bool
	failDelete func(cols []string) bool
}

var errInjected = errors.New("injected failure")

func (f *failing) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if f.on.Load() && f.failPut(cells) {
		return errInjected
	}
	return f.Store.Put(ctx, table, row, cells...)
}

func (f *failing) Delete(ctx context.Context, table, row string, ts int64, cols ...string) error {
	if f.on.Load() && f.failDelete(cols) {
		return errInjected
	}
	return f.Store.Delete(ctx, table, row, ts, cols...)
}

// A waiter whose place lapsed (renewals failing) takes a new one; when the
// delete of its old queue cell fails, the old cell would stand in front of
// the new place until it expired. The waiter deletes it on its next pass.
func TestQueueLock_FailedDeleteOfOldPlaceIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := model.New(&clock.Local{})
		a := newLocker(t, base, nil)
		ha, err := a.Lock(context.Background(), "id")
		if err != nil {
			t.Fatal(err)
		}
		var deletesFailed atomic.Int64
		var mu sync.Mutex
		var first string // b's first place: its renewals fail
		f := &failing{Store: base,
			failPut: func(cells []lockstep.Cell) bool {
				mu.Lock()
				defer mu.Unlock()
				for _, c := range cells {
					if isQueueColumn(c.Column) {
						if first == "" {
							first = c.Column
						}
						return c.Column == first
					}
				}
				return false
			},
			failDelete: func(cols []string) bool {
				for _, c := range cols {
					if isQueueColumn(c) {
						return deletesFailed.Add(1) == 1 // the first delete of a place: the old one
					}
				}
				return false
			},
		}
		b := newLocker(t, f, nil)
		done := make(chan error, 1)
		go func() {
			h, err := b.Lock(context.Background(), "id")
			if err == nil {
				err = h.Unlock(context.Background())
			}
			done <- err
		}()
		synctest.Wait()
		f.on.Store(true) // b's renewals fail from now on: its place lapses at TTL/2
		time.Sleep(ttl/2 + 100*time.Millisecond)
		synctest.Wait()
		if deletesFailed.Load() < 2 {
			t.Fatalf("the old place's delete was not retried (%d deletes)", deletesFailed.Load())
		}
		var bq []string
		for _, c := range cells(t, base, "id") {
			if isQueueColumn(c) && !strings.Contains(c, ha.Owner()) {
				bq = append(bq, c)
			}
		}
		if len(bq) != 1 {
			t.Fatalf("b's queue cells = %v, want only its new place", bq)
		}
		if err := ha.Unlock(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}
