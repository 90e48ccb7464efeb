package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep/model"
)

// seedConfig is the experiment of seed 000 §6: P processes each take one lock
// id K times, holding it for hold; the wait of each acquisition is measured.
type seedConfig struct {
	processes  []int
	k          int
	hold       time.Duration
	poll       time.Duration // the queue lock's re-read interval
	minLatency time.Duration // simulated request latency (sim backend)
	maxLatency time.Duration
	algorithms []algorithm
	seed       uint64
	fencing    bool // every acquisition draws a fencing token from the global time service
	// cellDone, when set, is told of each run (one algorithm, one process
	// count) as it ends: a long experiment reports its cells as they come,
	// not only in the tables at its end.
	cellDone func(run)
}

// seedLockID is the one lock id every process of a seed run takes.
const seedLockID = "seed"

// run is one cell of the seed tables: one algorithm with p processes.
type run struct {
	algorithm algorithm
	processes int
	procs     []procResult  // per process
	elapsed   time.Duration // from the common start to the last release
}

// waits returns the acquisition waits per process.
func (r run) waits() [][]time.Duration {
	out := make([][]time.Duration, len(r.procs))
	for i, p := range r.procs {
		out[i] = p.Waits
	}
	return out
}

// moments returns when each acquisition completed, per process.
func (r run) moments() [][]time.Duration {
	out := make([][]time.Duration, len(r.procs))
	for i, p := range r.procs {
		out[i] = p.At
	}
	return out
}

// requests sums the request counts of every process.
func (r run) requests() requestCounts {
	var c requestCounts
	for _, p := range r.procs {
		c.Acquire += p.Requests.Acquire
		c.Release += p.Requests.Release
		c.Background += p.Requests.Background
	}
	return c
}

// runSimSeed runs every (algorithm, process count) of cfg on the embedded
// model, one after another.
func runSimSeed(cfg seedConfig) ([]run, error) {
	var out []run
	for _, a := range cfg.algorithms {
		for _, p := range cfg.processes {
			r, err := runSimOne(cfg, a, p)
			if err != nil {
				return nil, fmt.Errorf("%s with %d processes: %w", a, p, err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// runSimOne runs p processes of algorithm a on one model store with a
// latency per request, on virtual time (runVirtual). Each process has
// its own locker, as separate OS processes would; they share the store and
// its latency streams, one per table (latencyStreams).
func runSimOne(cfg seedConfig, a algorithm, p int) (run, error) {
	clk := model.NewManualClock(0)
	shared, streams := model.New(clk), newLatencyStreams(cfg.seed, p)
	procs := make([]contender, p)
	for i := range p {
		store := streams.store(shared, clk, cfg.minLatency, cfg.maxLatency)
		c, err := newLockstepContender(a, lockerParams{store: store, clock: clk, process: fmt.Sprintf("p%d", i),
			poll: cfg.poll, rand: rand.New(rand.NewPCG(cfg.seed, uint64(i))), fencing: cfg.fencing})
		if err != nil {
			return run{}, err
		}
		procs[i] = c
	}
	r := run{algorithm: a, processes: p, procs: make([]procResult, p)}
	var (
		firstErr error
		errOnce  sync.Once
	)
	start := clk.Now()
	runVirtual(clk, func() {
		var wg sync.WaitGroup
		// Processes start behind a gate and then sleep i+1 µs, so that they
		// begin one at a time, in index order, once all exist: the first
		// requests (and the latencies they draw) never race.
		gate := make(chan struct{})
		for i, c := range procs {
			wg.Go(func() {
				ctx := context.Background()
				defer c.Close(ctx)
				<-gate
				_ = clk.Sleep(ctx, time.Duration(i+1)*time.Microsecond)
				res, err := contend(ctx, c, clk, start, loopConfig{id: seedLockID, k: cfg.k, hold: cfg.hold})
				r.procs[i] = res
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("process %d: %w", i, err) })
				}
			})
		}
		close(gate)
		wg.Wait()
	})
	r.elapsed = time.Duration(clk.Now()-start) * time.Microsecond
	return r, firstErr
}
