package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// seedConfig is the experiment of seed 000 §6: P processes each take one lock
// id K times; the wait of each acquisition is measured.
type seedConfig struct {
	processes  []int
	k          int
	hold       time.Duration
	minLatency time.Duration
	maxLatency time.Duration
	algorithms []lockstep.Mode
	seed       uint64
}

// run is one cell of the tables: one algorithm with p processes.
type run struct {
	mode      lockstep.Mode
	processes int
	waits     [][]time.Duration // per process, in acquisition order
	requests  int               // store requests of all acquisitions
	elapsed   time.Duration     // virtual time of the whole run
}

func runSeed(cfg seedConfig) ([]run, error) {
	var out []run
	for _, mode := range cfg.algorithms {
		for _, p := range cfg.processes {
			r, err := runOne(cfg, mode, p)
			if err != nil {
				return nil, fmt.Errorf("%v with %d processes: %w", mode, p, err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// counter sums store requests reported by acquisitions.
type counter struct {
	lockstep.NopObserver
	mu       sync.Mutex
	requests int
}

func (c *counter) ObserveAcquire(_ context.Context, e lockstep.AcquireEvent) {
	c.mu.Lock()
	c.requests += e.Requests
	c.mu.Unlock()
}

func newLocker(mode lockstep.Mode, s lockstep.Store, clk lockstep.Clock, i int, seed uint64, obs lockstep.Observer) (interface {
	lockstep.Locker
	Close(context.Context) error
}, error) {
	id := fmt.Sprintf("p%d", i)
	switch mode {
	case lockstep.Legacy:
		return shadowlock.New(s, &shadowlock.Options{Clock: clk, ProcessID: id, Observer: obs, Rand: rand.New(rand.NewPCG(seed, uint64(i)))})
	case lockstep.New:
		return queuelock.New(s, &queuelock.Options{Clock: clk, ProcessID: id, Observer: obs, Poll: 10 * time.Millisecond})
	}
	return nil, fmt.Errorf("mode %v is not benchmarked yet", mode)
}

func runOne(cfg seedConfig, mode lockstep.Mode, p int) (run, error) {
	clk := model.NewManualClock(0)
	store, err := model.NewFaulty(model.New(clk), model.FaultConfig{
		MinLatency: cfg.minLatency, MaxLatency: cfg.maxLatency, Clock: clk,
		Rand: rand.New(rand.NewPCG(cfg.seed, uint64(p))),
	})
	if err != nil {
		return run{}, err
	}
	r := run{mode: mode, processes: p, waits: make([][]time.Duration, p)}
	obs := &counter{}
	var firstErr error
	var errOnce sync.Once
	start := clk.Now()
	runVirtual(clk, func() {
		var wg sync.WaitGroup
		// Workers start behind a gate and then sleep i+1 µs, so that they
		// begin one at a time, in index order, once all exist: the first
		// requests (and the latencies they draw) never race.
		gate := make(chan struct{})
		for i := range p {
			l, err := newLocker(mode, store, clk, i, cfg.seed, obs)
			if err != nil {
				errOnce.Do(func() { firstErr = err })
				close(gate)
				wg.Wait()
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer l.Close(context.Background())
				ctx := context.Background()
				<-gate
				_ = clk.Sleep(ctx, time.Duration(i+1)*time.Microsecond)
				for range cfg.k {
					t0 := clk.Now()
					h, err := l.Lock(ctx, "seed")
					if err != nil {
						errOnce.Do(func() { firstErr = err })
						return
					}
					r.waits[i] = append(r.waits[i], time.Duration(clk.Now()-t0)*time.Microsecond)
					_ = clk.Sleep(ctx, cfg.hold)
					if err := h.Unlock(ctx); err != nil {
						errOnce.Do(func() { firstErr = err })
						return
					}
				}
			}()
		}
		close(gate)
		wg.Wait()
	})
	r.elapsed = time.Duration(clk.Now()-start) * time.Microsecond
	r.requests = obs.requests
	return r, firstErr
}
