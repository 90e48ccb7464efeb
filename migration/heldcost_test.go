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
// Unlock. Renewals are not due within the run (TTL 60s).
func BenchmarkHeldLockCost(b *testing.B) {
	for _, path := range [][]lockstep.Mode{{lockstep.ModeLegacy}, {lockstep.ModeCombined}, {lockstep.ModeCombined, lockstep.ModeNew}} {
		m := path[len(path)-1]
		b.Run(m.String(), func(b *testing.B) {
			ctx := context.Background()
			base := model.New(&clock.Local{})
			c, err := NewController(base, nil)
			if err != nil {
				b.Fatal(err)
			}
			for _, p := range path {
				if err := c.Set(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
			s := &counting{Store: base}
			o := &Options{Queue: &queuelock.Options{TTL: time.Minute}, Legacy: &shadowlock.Options{TTL: time.Minute}}
			l, err := New(s, flagOf(m), withIdentity(o, &clock.Local{}, "bench"))
			if err != nil {
				b.Fatal(err)
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
			hs := make([]lockstep.Lock, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				h, err := l.Lock(ctx, fmt.Sprintf("id-%d", i))
				if err != nil {
					b.Fatal(err)
				}
				hs = append(hs, h)
			}
			b.StopTimer()
			r1 := s.n.Load()
			runtime.GC()
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			g1 := runtime.NumGoroutine()
			for _, h := range hs {
				if err := h.Unlock(ctx); err != nil {
					b.Fatal(err)
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(g1-g0)/n, "goroutines/held")
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/n, "heapB/held")
			b.ReportMetric(float64(r1-r0)/n, "requests/Lock")
			b.ReportMetric(float64(s.n.Load()-r1)/n, "requests/Unlock")
		})
	}
}
