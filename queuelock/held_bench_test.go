package queuelock_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// heldLocks is how many locks one Locker holds in BenchmarkLocker_HeldLocks:
// enough that the Locker's fixed costs vanish from the per-lock figures.
const heldLocks = 10_000

// BenchmarkLocker_HeldLocks measures what holding locks costs one Locker at
// rest: goroutines, heap and goroutine stacks per held lock, with heldLocks
// locks taken by one Locker on the model store (whose cells count in the
// heap figure too). The clock is a ManualClock that never moves, so no
// renewal runs while it measures. It uses only the public API, so the same
// file measures any version of the library:
//
//	go test ./queuelock -run '^$' -bench HeldLocks -benchtime 3x
func BenchmarkLocker_HeldLocks(b *testing.B) {
	for b.Loop() {
		g, heap, stack := holdLocks(b, heldLocks)
		b.ReportMetric(g, "goroutines/lock")
		b.ReportMetric(heap, "heapB/lock")
		b.ReportMetric(stack, "stackB/lock")
	}
}

// holdLocks takes n locks with one Locker and returns the goroutines, heap
// bytes and stack bytes per held lock, measured after a GC with every lock
// held, against the same Locker and store before the first Lock.
func holdLocks(b *testing.B, n int) (goroutines, heap, stack float64) {
	ctx := context.Background()
	clk := model.NewManualClock(0)
	store := model.New(clk)
	l, err := queuelock.New(store, &queuelock.Options{Clock: clk})
	if err != nil {
		b.Fatal(err)
	}
	before, g0 := memory()
	held := make([]lockstep.Lock, 0, n)
	for i := range n {
		h, err := l.Lock(ctx, fmt.Sprintf("held/%d", i))
		if err != nil {
			b.Fatal(err)
		}
		held = append(held, h)
	}
	after, g1 := memory()
	for _, h := range held {
		if err := h.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Close(ctx); err != nil {
		b.Fatal(err)
	}
	per := func(a, b uint64) float64 { return (float64(a) - float64(b)) / float64(n) }
	return float64(g1-g0) / float64(n), per(after.HeapAlloc, before.HeapAlloc), per(after.StackInuse, before.StackInuse)
}

func memory() (runtime.MemStats, int) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m, runtime.NumGoroutine()
}
