package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep/model"
)

// runSimScale runs the scale scenario for algorithm a on the embedded model
// on virtual time (runVirtual): cfg.processes Lockers share one model store
// with a latency per request, as separate processes share a cluster. The
// heap per Locker is what a GC frees when all of them, closed, are dropped,
// divided by their number.
func runSimScale(cfg scaleConfig, a algorithm, minLat, maxLat time.Duration, seed uint64) (scaleResult, error) {
	clk := model.NewManualClock(0)
	faulty, err := model.NewFaulty(model.New(clk), model.FaultConfig{
		MinLatency: minLat, MaxLatency: maxLat, Clock: clk,
		Rand: rand.New(rand.NewPCG(seed, uint64(cfg.processes))),
	})
	if err != nil {
		return scaleResult{}, err
	}
	store := &kindStore{inner: faulty}
	procs := make([]contender, cfg.processes)
	for i := range procs {
		if procs[i], err = newLockstepContender(a, lockerParams{store: store, clock: clk, process: fmt.Sprintf("p%d", i),
			poll: cfg.poll, rand: rand.New(rand.NewPCG(seed, uint64(i)))}); err != nil {
			return scaleResult{}, err
		}
	}
	results := make([]scaleResult, cfg.processes)
	var (
		firstErr error
		errOnce  sync.Once
	)
	fail := func(err error) { errOnce.Do(func() { firstErr = err }) }
	runVirtual(clk, func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var wg sync.WaitGroup
		wg.Go(func() { // the run's end, on virtual time
			_ = clk.Sleep(ctx, cfg.duration)
			cancel()
		})
		// Processes start behind a gate, then one at a time in index order
		// (their loops stagger by a µs each within them): nothing races.
		gate := make(chan struct{})
		for i, c := range procs {
			wg.Go(func() {
				<-gate
				_ = clk.Sleep(ctx, time.Duration(i*(scaleLoops+1))*time.Microsecond)
				var acq, rel tally
				res, err := scaleProcess(ctx, c, clk, cfg, "scale", seed+uint64(i)*1000, &acq, &rel)
				results[i] = res
				if err != nil {
					fail(fmt.Errorf("process %d: %w", i, err))
				}
			})
		}
		close(gate)
		wg.Wait()
	})
	total := scaleResult{Reads: store.reads.Load(), Writes: store.writes.Load(), Lockers: cfg.processes}
	for _, r := range results {
		total.Acquisitions += r.Acquisitions
		total.Waits = append(total.Waits, r.Waits...)
		total.IDs = max(total.IDs, r.IDs)
	}
	// The heap the Lockers hold: closed (on virtual time, their releases
	// are store requests) and dropped, what does a GC free?
	before := heapAfterGC()
	runVirtual(clk, func() {
		for i, c := range procs {
			if err := c.Close(context.Background()); err != nil {
				fail(fmt.Errorf("closing process %d: %w", i, err))
			}
		}
	})
	procs = nil
	total.Heap = before - heapAfterGC()
	runtime.KeepAlive(store)
	return total, firstErr
}

// heapAfterGC returns the live heap in bytes after a full collection.
func heapAfterGC() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
