package combined

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Regression tests for three defects the rollout property tests found
// (propertytests, fleets legacy+combined and combined+new).

// frozenClock reads a time the test sets; its sleepers wake only when their
// ctx ends, as if the lease goroutines were never scheduled (a starved
// thread, a pause of the whole process that has just ended).
type frozenClock struct{ now atomic.Int64 }

func (c *frozenClock) Now() int64     { return c.now.Load() }
func (c *frozenClock) Elapsed() int64 { return c.now.Load() }

func (c *frozenClock) Sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		<-ctx.Done()
	}
	return ctx.Err()
}

// Lost must check both leases' deadlines itself, as each lease's Lost does:
// a holder that looks at Lost before working must not work past either
// lease even if no watchdog has run. A channel closed only by a goroutine
// relaying the leases' own signals would let a holder resuming from a pause
// work on (propertytests: "lease: ... expired without Lost()").
func TestCombined_LostChecksBothLeaseDeadlinesItself(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		clk := &frozenClock{}
		clk.now.Store(model.DefaultStart)
		c, err := New(model.New(clk), opts(locktest.Timing{TTL: tm.TTL, Renew: tm.Renew, Clock: clk}, 1))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		h, err := c.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-h.Lost():
			t.Fatal("lost at once")
		default:
		}
		clk.now.Add((tm.TTL/2 + time.Microsecond).Microseconds())
		select {
		case <-h.Lost():
		default:
			t.Fatal("Lost still open past both leases' deadlines")
		}
		if err := h.Unlock(ctx); !errors.Is(err, lockstep.ErrLost) {
			t.Fatalf("Unlock after loss = %v, want ErrLost", err)
		}
	})
}

// Close releases the combined locks still held and ends their goroutines.
// Closing the two lockers only would leave each held lock's loss-merging
// goroutine blocked for ever (synctest reports it as a deadlock).
func TestCombined_CloseReleasesHeldLocksAndEndsTheirGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		c, _ := New(s, opts(tm, 1))
		if _, err := c.Lock(ctx, "id"); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Lock(ctx, "id"); !errors.Is(err, lockstep.ErrClosed) {
			t.Fatalf("Lock after Close = %v, want ErrClosed", err)
		}
		for table, from := range map[string]string{shadowlock.DefaultMainTable: "", queuelock.DefaultTable: "0"} {
			if cs, _ := s.Read(ctx, table, "id", lockstep.Slice{From: from}); len(cs) != 0 {
				t.Fatalf("%s left with %v after Close", table, cs)
			}
		}
	})
}

// cuttableStore is one process's connection: it fails writes to the queue
// table while cut is set, and counts the requests to the legacy tables.
type cuttableStore struct {
	lockstep.Store
	cut    atomic.Bool
	legacy atomic.Int64
}

func (c *cuttableStore) queueCut(table string) error {
	if table == queuelock.DefaultTable && c.cut.Load() {
		return errors.New("test: queue table cut")
	}
	if table == shadowlock.DefaultShadowTable || table == shadowlock.DefaultMainTable {
		c.legacy.Add(1)
	}
	return nil
}

func (c *cuttableStore) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if err := c.queueCut(table); err != nil {
		return err
	}
	return c.Store.Put(ctx, table, row, cells...)
}

func (c *cuttableStore) Delete(ctx context.Context, table, row string, ts int64, cols ...string) error {
	if err := c.queueCut(table); err != nil {
		return err
	}
	return c.Store.Delete(ctx, table, row, ts, cols...)
}

func (c *cuttableStore) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	if table == shadowlock.DefaultShadowTable || table == shadowlock.DefaultMainTable {
		c.legacy.Add(1)
	}
	return c.Store.Read(ctx, table, row, sl)
}

// Only the queue's head contends on the legacy tables (docs/algorithms.md, section 6.3). A
// combined waiter whose queue lock is lost while it waits for the legacy
// lock must stop contending and start again from the queue. Contending on
// with the legacy processes would be unfair (it starves behind a combined
// peer that became head: propertytests, combined+new, "liveness: p0 has
// waited 18.4s"), and would return a lock whose queue half was gone.
func TestCombined_WaiterThatLosesItsQueueLockStopsContendingForLegacy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		base := model.New(&clock.Local{})
		legacy, _ := shadowlock.New(base, &shadowlock.Options{TTL: tm.TTL, Renew: tm.Renew, ProcessID: "legacy",
			Rand: rand.New(rand.NewPCG(1, 1))})
		defer legacy.Close(ctx)
		held, err := legacy.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}

		s := &cuttableStore{Store: base}
		c, _ := New(s, opts(tm, 2))
		defer c.Close(ctx)
		type result struct {
			l   lockstep.Lock
			err error
		}
		got := make(chan result, 1)
		go func() {
			l, err := c.Lock(ctx, "id")
			got <- result{l, err}
		}()
		time.Sleep(500 * time.Millisecond) // queue lock taken, legacy lock awaited
		if s.legacy.Load() == 0 {
			t.Fatal("the combined waiter never contended for the legacy lock")
		}
		s.cut.Store(true) // its queue renewals fail: lost after TTL/2
		time.Sleep(tm.TTL/2 + tm.Renew)
		before := s.legacy.Load()
		time.Sleep(5 * time.Second)
		if n := s.legacy.Load() - before; n != 0 {
			t.Fatalf("%d legacy-table requests by a waiter whose queue lock was lost", n)
		}
		s.cut.Store(false)
		if err := held.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		r := <-got
		if r.err != nil {
			t.Fatal(r.err)
		}
		select {
		case <-r.l.Lost():
			t.Fatal("Lock returned a lock already lost")
		default:
		}
		_ = r.l.Unlock(ctx)
	})
}
