package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
)

// cohortConfig is the local-handoff experiment (-scenario cohort): P
// processes, each one Locker shared by G goroutines, take one hot id for a
// run of duration, holding it each time for hold; the new algorithm with and
// without queuelock.Options.LocalHandoff. On the sim backend the processes
// share a model store and the run is virtual time; on the real backend
// (cohort_real.go) it is wall time on a Cassandra cluster.
type cohortConfig struct {
	processes, goroutines int
	bound                 int           // new-local's and new-retain's LocalHandoff
	retain                time.Duration // new-retain's Retain
	duration, hold, poll  time.Duration
	minLatency            time.Duration
	maxLatency            time.Duration
	seed                  uint64
	fencing               bool
	// real describes the real backend and how its processes are made;
	// empty on the sim backend.
	real string
}

// cohortRun is one algorithm's run: per goroutine, what contend recorded.
type cohortRun struct {
	algorithm algorithm
	loops     [][]procResult // [process][goroutine]
	elapsed   time.Duration
	requests  int64 // store requests of Lock and Unlock calls
}

// cohortGrant is one acquisition, in the order of the run.
type cohortGrant struct {
	proc     int
	at, wait time.Duration
	released time.Duration
}

// grants returns every acquisition of r, by the moment it was made.
func (r cohortRun) grants() []cohortGrant {
	var out []cohortGrant
	for p, gs := range r.loops {
		for _, g := range gs {
			for i := range g.At {
				c := cohortGrant{proc: p, at: g.At[i], wait: g.Waits[i]}
				if i < len(g.Released) {
					c.released = g.Released[i]
				}
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(out, func(a, b cohortGrant) int { return int(a.at - b.at) })
	return out
}

// newCohortRun returns an empty run of algorithm a for cfg's shape.
func newCohortRun(cfg cohortConfig, a algorithm) cohortRun {
	r := cohortRun{algorithm: a, loops: make([][]procResult, cfg.processes)}
	for i := range r.loops {
		r.loops[i] = make([]procResult, cfg.goroutines)
	}
	return r
}

// runSimCohort runs cfg's experiment for algorithm a on one model store with
// a latency per request, on virtual time.
func runSimCohort(cfg cohortConfig, a algorithm) (cohortRun, error) {
	clk := model.NewManualClock(0)
	shared, streams := model.New(clk), newLatencyStreams(cfg.seed, cfg.processes)
	procs := make([]contender, cfg.processes)
	for i := range procs {
		store := streams.store(shared, clk, cfg.minLatency, cfg.maxLatency)
		c, err := newLockstepContender(a, lockerParams{store: store, clock: clk, process: fmt.Sprintf("p%d", i),
			poll: cfg.poll, rand: rand.New(rand.NewPCG(cfg.seed, uint64(i))), fencing: cfg.fencing, local: cfg.bound, retain: cfg.retain})
		if err != nil {
			return cohortRun{}, err
		}
		procs[i] = c
	}
	r := newCohortRun(cfg, a)
	var err error
	runVirtual(clk, func() {
		err = r.contend(procs, clk, seedLockID, cfg)
		for _, c := range procs {
			_ = c.Close(context.Background())
		}
	})
	return r, err
}

// contend runs cfg's loops on procs, cfg.goroutines per process, all on id,
// for cfg.duration on clk, recording into r. It returns the first error of a
// loop, with what every loop did.
func (r *cohortRun) contend(procs []contender, clk lockstep.Clock, id string, cfg cohortConfig) error {
	var (
		firstErr error
		errOnce  sync.Once
	)
	start := clk.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { // the run's end, on clk
		_ = clk.Sleep(ctx, cfg.duration)
		cancel()
	})
	// Loops start behind a gate, then one at a time in index order.
	gate := make(chan struct{})
	for i, c := range procs {
		for j := range cfg.goroutines {
			wg.Go(func() {
				<-gate
				_ = clk.Sleep(ctx, time.Duration(i*cfg.goroutines+j+1)*time.Microsecond)
				res, err := contend(ctx, c, clk, start, loopConfig{id: id, hold: cfg.hold})
				r.loops[i][j] = res
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("process %d goroutine %d: %w", i, j, err) })
				}
			})
		}
	}
	close(gate)
	wg.Wait()
	r.elapsed = time.Duration(clk.Now()-start) * time.Microsecond
	for _, gs := range r.loops {
		for _, g := range gs {
			r.requests += g.Requests.Acquire + g.Requests.Release
		}
	}
	return firstErr
}

// cohortFigures are the figures of one run.
type cohortFigures struct {
	acquisitions int
	perSecond    float64
	handoffP50   time.Duration // from an Unlock's call to the next acquisition
	handoffP99   time.Duration
	longestWait  time.Duration
	// longestRemote is the longest wait of an acquisition that followed
	// a holder of another process: the wait a remote waiter sees.
	longestRemote time.Duration
	jain          float64 // over processes' acquisitions
	requests      float64 // store requests per acquisition and release
}

func (r cohortRun) figures(duration time.Duration) cohortFigures {
	gs := r.grants()
	var f cohortFigures
	f.acquisitions = len(gs)
	f.perSecond = float64(len(gs)) / duration.Seconds()
	shares := make([]float64, len(r.loops))
	var handoffs []time.Duration
	for i, g := range gs {
		shares[g.proc]++
		f.longestWait = max(f.longestWait, g.wait)
		if i == 0 {
			continue
		}
		prev := gs[i-1]
		handoffs = append(handoffs, g.at-prev.released)
		if prev.proc != g.proc {
			f.longestRemote = max(f.longestRemote, g.wait)
		}
	}
	slices.Sort(handoffs)
	f.handoffP50, f.handoffP99 = percentile(handoffs, 50), percentile(handoffs, 99)
	f.jain = jain(shares)
	if len(gs) > 0 {
		f.requests = float64(r.requests) / float64(len(gs))
	}
	return f
}

// printCohort writes the table of runs.
func printCohort(w io.Writer, cfg cohortConfig, runs []cohortRun) error {
	fmt.Fprintf(w, "cohort: %d processes × %d goroutines on one id, hold %v, ", cfg.processes, cfg.goroutines, cfg.hold)
	if cfg.real == "" {
		fmt.Fprintf(w, "%v of virtual time, latency %v..%v", cfg.duration, cfg.minLatency, cfg.maxLatency)
	} else {
		fmt.Fprintf(w, "%v of wall time on %s", cfg.duration, cfg.real)
	}
	fmt.Fprintf(w, ", poll %v, fencing %v, new-local's LocalHandoff %d", cfg.poll, cfg.fencing, cfg.bound)
	if slices.ContainsFunc(runs, func(r cohortRun) bool { return r.algorithm == algoNewRetain }) {
		fmt.Fprintf(w, ", new-retain's Retain %v", cfg.retain)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "algorithm\tacquisitions\tper s\thandoff p50\thandoff p99\tlongest wait\tlongest remote wait\tJain (processes)\trequests/acq\t")
	for _, r := range runs {
		f := r.figures(cfg.duration)
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%v\t%v\t%v\t%v\t%.3f\t%.2f\t\n", r.algorithm, f.acquisitions, f.perSecond,
			f.handoffP50.Round(time.Microsecond), f.handoffP99.Round(time.Microsecond), f.longestWait.Round(time.Microsecond),
			f.longestRemote.Round(time.Microsecond), f.jain, f.requests)
	}
	return tw.Flush()
}

// runCohortCommand runs -scenario cohort.
func runCohortCommand(o *options) error {
	if o.backend != "sim" {
		for _, f := range []string{"min-latency", "max-latency", "seed"} {
			if o.given(f) {
				return fmt.Errorf("-%s is the sim backend's: on -backend cassandra the node's own latency and timing apply; drop the flag", f)
			}
		}
	}
	cfg := cohortConfig{processes: 2, goroutines: o.goroutines, bound: o.localBound, retain: o.retain, duration: o.duration, hold: o.hold,
		poll: o.poll, minLatency: o.minLat, maxLatency: o.maxLat, seed: o.seed, fencing: o.fencing}
	if o.given("processes") {
		counts, err := o.processCounts()
		if err != nil {
			return err
		}
		if len(counts) != 1 {
			return fmt.Errorf("-scenario cohort takes one process count, got %q", o.procs)
		}
		cfg.processes = counts[0]
	}
	switch {
	case cfg.goroutines < 1:
		return fmt.Errorf("-goroutines must be at least 1, got %d", cfg.goroutines)
	case cfg.bound < 1:
		return fmt.Errorf("-local-handoff must be at least 1, got %d", cfg.bound)
	case cfg.retain <= 0:
		return fmt.Errorf("-retain must be positive, got %v", cfg.retain)
	case cfg.duration <= 0:
		return fmt.Errorf("-duration must be positive, got %v", cfg.duration)
	}
	list := joinAlgorithms([]algorithm{algoNew, algoNewLocal})
	if o.algorithms != "" {
		list = o.algorithms
	}
	algos, err := parseAlgorithms(list, []algorithm{algoNew, algoNewLocal, algoNewRetain})
	if err != nil {
		return err
	}
	if o.backend != "sim" {
		runs, where, err := runRealCohort(o.real, cfg, algos)
		cfg.real = where
		if err != nil {
			return err
		}
		return printCohort(os.Stdout, cfg, runs)
	}
	var runs []cohortRun
	for _, a := range algos {
		r, err := runSimCohort(cfg, a)
		if err != nil {
			return fmt.Errorf("%s: %w", a, err)
		}
		runs = append(runs, r)
	}
	return printCohort(os.Stdout, cfg, runs)
}
