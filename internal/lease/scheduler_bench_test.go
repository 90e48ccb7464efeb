package lease

import (
	"runtime"
	"testing"

	"github.com/lockstep-go/lockstep/model"
)

// BenchmarkScheduler_HeldLeases measures the lease machinery alone: the
// goroutines, heap and goroutine stacks that 10,000 leases of one Scheduler
// cost at rest, on a ManualClock that never moves (no renewal runs).
// queuelock's BenchmarkLocker_HeldLocks measures a whole held lock.
func BenchmarkScheduler_HeldLeases(b *testing.B) {
	const n = 10_000
	for b.Loop() {
		c := model.NewManualClock(0)
		s, err := NewScheduler(c, nil)
		if err != nil {
			b.Fatal(err)
		}
		before, g0 := memStats()
		leases := make([]*Lease, n)
		for i := range leases {
			leases[i] = s.Start(cfg, Stamp(c), ok, Hooks{})
		}
		after, g1 := memStats()
		for _, l := range leases {
			l.Stop()
		}
		s.Close()
		b.ReportMetric(float64(g1-g0)/n, "goroutines/lease")
		b.ReportMetric((float64(after.HeapAlloc)-float64(before.HeapAlloc))/n, "heapB/lease")
		b.ReportMetric((float64(after.StackInuse)-float64(before.StackInuse))/n, "stackB/lease")
	}
}

func memStats() (runtime.MemStats, int) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m, runtime.NumGoroutine()
}
