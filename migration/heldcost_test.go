package migration

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// counting counts the requests a store serves.
type counting struct {
	lockstep.Store
	n atomic.Int64
}

func (c *counting) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	c.n.Add(1)
	return c.Store.Put(ctx, table, row, cells...)
}

func (c *counting) Delete(ctx context.Context, table, row string, ts int64, cols ...string) error {
	c.n.Add(1)
	return c.Store.Delete(ctx, table, row, ts, cols...)
}

func (c *counting) Read(ctx context.Context, table, row string, s lockstep.Slice) ([]lockstep.Cell, error) {
	c.n.Add(1)
	return c.Store.Read(ctx, table, row, s)
}

// BenchmarkHeldLockCost holds b.N locks (distinct ids, uncontended) through
// one migration.Locker in each mode and reports, per held lock, the
// goroutines and heap bytes held, and the store requests of Lock and of
// Unlock. Renewals are not due within the run (TTL 60s). Its output at
// -benchtime 10000x is committed in docs/benchmarks/model/held-lock-cost.txt,
// whose counts TestHeldLockCost_CommittedCountsHold keeps current.
func BenchmarkHeldLockCost(b *testing.B) {
	for _, path := range heldCostPaths {
		b.Run(path[len(path)-1].String(), func(b *testing.B) {
			c := measureHeldLockCost(b, path, b.N)
			n := float64(b.N)
			b.ReportMetric(float64(c.goroutines)/n, "goroutines/held")
			b.ReportMetric(float64(c.heapBytes)/n, "heapB/held")
			b.ReportMetric(float64(c.lockRequests)/n, "requests/Lock")
			b.ReportMetric(float64(c.unlockRequests)/n, "requests/Unlock")
		})
	}
}

// heldCostPaths are the phase moves to each mode the benchmark measures.
var heldCostPaths = [][]lockstep.Mode{{lockstep.ModeLegacy}, {lockstep.ModeCombined}, {lockstep.ModeCombined, lockstep.ModeNew}}

// heldCost is what n held locks cost, in total.
type heldCost struct {
	goroutines, heapBytes, lockRequests, unlockRequests int64
}

// measureHeldLockCost takes n locks of distinct ids through one
// migration.Locker in the mode the phase path ends in, then releases them.
// Under a *testing.B the timer runs only while the locks are taken.
func measureHeldLockCost(tb testing.TB, path []lockstep.Mode, n int) heldCost {
	tb.Helper()
	b, _ := tb.(*testing.B)
	m := path[len(path)-1]
	ctx := context.Background()
	base := model.New(&clock.Local{})
	c, err := NewController(base, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range path {
		if err := c.Set(ctx, p); err != nil {
			tb.Fatal(err)
		}
	}
	s := &counting{Store: base}
	o := &Options{Queue: &queuelock.Options{TTL: time.Minute}, Legacy: &shadowlock.Options{TTL: time.Minute}}
	l, err := New(s, flagOf(m), withIdentity(o, &clock.Local{}, "bench"))
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close(ctx)
	if h, err := l.Lock(ctx, "warm"); err == nil { // census published, phase cached
		_ = h.Unlock(ctx)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	r0 := s.n.Load()
	hs := make([]lockstep.Lock, 0, n)
	if b != nil {
		b.ResetTimer()
	}
	for i := range n {
		h, err := l.Lock(ctx, fmt.Sprintf("id-%d", i))
		if err != nil {
			tb.Fatal(err)
		}
		hs = append(hs, h)
	}
	if b != nil {
		b.StopTimer()
	}
	r1 := s.n.Load()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	g1 := runtime.NumGoroutine()
	for _, h := range hs {
		if err := h.Unlock(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	return heldCost{
		goroutines:     int64(g1 - g0),
		heapBytes:      int64(after.HeapAlloc) - int64(before.HeapAlloc),
		lockRequests:   r1 - r0,
		unlockRequests: s.n.Load() - r1,
	}
}
