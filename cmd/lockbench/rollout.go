package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// rolloutConfig is the rollout scenario: processes increment a shared
// counter under one lock while a Controller moves the phase through
// rolloutPath, holding each phase for phaseHold of virtual time.
type rolloutConfig struct {
	processes  int
	phaseHold  time.Duration
	hold       time.Duration
	minLatency time.Duration
	maxLatency time.Duration
	seed       uint64
}

// rolloutPath is the phase sequence after the initial legacy phase.
var rolloutPath = []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew, lockstep.ModeCombined, lockstep.ModeLegacy}

// phaseStats are the figures of one phase.
type phaseStats struct {
	name     string
	move     time.Duration // how long Set took to enter the phase (its drain)
	byMode   [lockstep.ModeNew + 1]int
	refused  int // acquisitions the guard refused (the flag lagging the phase)
	lost     int // leases lost
	waits    []time.Duration
	doubles  int // entries into the critical section while someone was inside
	duration time.Duration
}

// rolloutResult is the outcome of a run.
type rolloutResult struct {
	phases   []*phaseStats
	counter  int
	expected int
	elapsed  time.Duration
}

// rollout holds the shared state of a run. mu guards everything below it.
type rollout struct {
	clk *model.ManualClock

	mu      sync.Mutex
	phase   *phaseStats
	inside  int
	counter int
	total   int
}

func (r *rollout) ObserveAcquire(context.Context, lockstep.AcquireEvent) {}
func (r *rollout) ObserveRelease(context.Context, lockstep.ReleaseEvent) {}
func (r *rollout) ObserveLease(_ context.Context, e lockstep.LeaseEvent) {
	if e.Lost {
		r.mu.Lock()
		r.phase.lost++
		r.mu.Unlock()
	}
}

// increment is the critical section: a read-modify-write of the counter
// spread over hold, with an in-memory holder count that detects overlaps.
func (r *rollout) increment(ctx context.Context, hold time.Duration, m lockstep.Mode, wait time.Duration) {
	r.mu.Lock()
	r.inside++
	if r.inside > 1 {
		r.phase.doubles++
	}
	v := r.counter
	r.phase.byMode[m]++
	r.phase.waits = append(r.phase.waits, wait)
	r.total++
	r.mu.Unlock()
	_ = r.clk.Sleep(ctx, hold)
	r.mu.Lock()
	r.counter = v + 1
	r.inside--
	r.mu.Unlock()
}

func runRollout(cfg rolloutConfig) (rolloutResult, error) {
	clk := model.NewManualClock(0)
	base := model.New(clk)
	r := &rollout{clk: clk, phase: &phaseStats{name: "legacy"}}
	phases := []*phaseStats{r.phase}
	faulty := func(stream uint64) (lockstep.Store, error) {
		return model.NewFaulty(base, model.FaultConfig{MinLatency: cfg.minLatency, MaxLatency: cfg.maxLatency, Clock: clk,
			Rand: rand.New(rand.NewPCG(cfg.seed, stream))})
	}
	var firstErr error
	var errOnce sync.Once
	fail := func(err error) { errOnce.Do(func() { firstErr = err }) }
	start := clk.Now()
	runVirtual(clk, func() {
		ctx := context.Background()
		var stop atomic.Bool
		var wg sync.WaitGroup
		for i := range cfg.processes {
			l, err := newRolloutProcess(faulty, clk, i, cfg.seed, r)
			if err != nil {
				fail(err)
				return
			}
			wg.Go(func() {
				defer l.Close(ctx)
				for !stop.Load() {
					t0 := clk.Now()
					h, err := l.Lock(ctx, "counter")
					if errors.Is(err, lockstep.ErrIncompatibleMode) {
						r.mu.Lock()
						r.phase.refused++
						r.mu.Unlock()
						_ = clk.Sleep(ctx, 100*time.Millisecond) // the flag follows the phase within its cache period
						continue
					}
					if err != nil {
						fail(err)
						return
					}
					r.increment(ctx, cfg.hold, h.Mode(), time.Duration(clk.Now()-t0)*time.Microsecond)
					err = h.Unlock(ctx)
					if err != nil {
						fail(err)
						return
					}
				}
			})
		}
		// The phases are driven from a goroutine of their own.
		wg.Go(func() {
			defer stop.Store(true)
			cs, err := faulty(1 << 32)
			if err == nil {
				err = drivePhases(ctx, cs, clk, cfg, r, &phases)
			}
			if err != nil {
				fail(err)
			}
		})
		wg.Wait()
	})
	res := rolloutResult{phases: phases, counter: r.counter, expected: r.total, elapsed: time.Duration(clk.Now()-start) * time.Microsecond}
	return res, firstErr
}

// drivePhases holds each phase for cfg.phaseHold, then moves to the next with
// a Controller whose drain lets the fleet follow.
func drivePhases(ctx context.Context, store lockstep.Store, clk *model.ManualClock, cfg rolloutConfig, r *rollout, phases *[]*phaseStats) error {
	c, err := migration.NewController(store, &migration.ControllerOptions{Clock: clk, Drain: 30 * time.Second, Poll: 250 * time.Millisecond})
	if err != nil {
		return err
	}
	names := []string{"combined (up)", "new", "combined (down)", "legacy (back)"}
	entered := clk.Now()
	for i, m := range rolloutPath {
		if err := clk.Sleep(ctx, cfg.phaseHold); err != nil {
			return err
		}
		t0 := clk.Now()
		if err := c.Set(ctx, m); err != nil {
			return fmt.Errorf("moving the phase to %v: %w", m, err)
		}
		next := &phaseStats{name: names[i], move: time.Duration(clk.Now()-t0) * time.Microsecond}
		r.mu.Lock()
		r.phase.duration = time.Duration(clk.Now()-entered) * time.Microsecond
		r.phase = next
		*phases = append(*phases, next)
		r.mu.Unlock()
		entered = clk.Now()
	}
	err = clk.Sleep(ctx, cfg.phaseHold)
	r.mu.Lock()
	r.phase.duration = time.Duration(clk.Now()-entered) * time.Microsecond
	r.mu.Unlock()
	return err
}

// newRolloutProcess is one process of the fleet: a migration.Locker on its
// own view of the store (its own latency stream), following the phase.
func newRolloutProcess(store func(uint64) (lockstep.Store, error), clk lockstep.Clock, i int, seed uint64, obs lockstep.Observer) (*migration.Locker, error) {
	s, err := store(uint64(i))
	if err != nil {
		return nil, err
	}
	flag, err := migration.NewPhaseFlag(s, &migration.PhaseFlagOptions{Clock: clk})
	if err != nil {
		return nil, err
	}
	return migration.New(s, flag, &migration.Options{Clock: clk, ProcessID: fmt.Sprintf("p%d", i),
		Queue:    &queuelock.Options{Poll: 10 * time.Millisecond},
		Legacy:   &shadowlock.Options{Rand: rand.New(rand.NewPCG(seed, uint64(i)+100))},
		Host:     "lockbench",
		Version:  "lockbench",
		Observer: obs,
	})
}

// printRollout prints one row per phase and the counter check.
func printRollout(w io.Writer, cfg rolloutConfig, res rolloutResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\tmove took\tlasted\tacquisitions\tlegacy\tcombined\tnew\trefused\tmean wait\tmax wait\tlost leases\tdouble grants\t")
	doubles := 0
	for _, p := range res.phases {
		var sum, maxW time.Duration
		for _, d := range p.waits {
			sum += d
			maxW = max(maxW, d)
		}
		mean := time.Duration(0)
		if len(p.waits) > 0 {
			mean = sum / time.Duration(len(p.waits))
		}
		doubles += p.doubles
		fmt.Fprintf(tw, "%s\t%s\t%.1f s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t\n", p.name, ms(p.move), p.duration.Seconds(), len(p.waits),
			p.byMode[lockstep.ModeLegacy], p.byMode[lockstep.ModeCombined], p.byMode[lockstep.ModeNew], p.refused, ms(mean), ms(maxW), p.lost, p.doubles)
	}
	tw.Flush()
	verdict := "exact"
	if res.counter != res.expected || doubles != 0 {
		verdict = "BROKEN"
	}
	fmt.Fprintln(w, "\nmove took: how long Controller.Set took: draining the fleet (before the intent), then intent, census check and commit;")
	fmt.Fprintln(w, "refused: acquisitions the guard turned down while a process's phase flag lagged the phase (retried after 100 ms).")
	fmt.Fprintf(w, "\ncounter %d, expected %d (one per acquisition): %s; double grants %d; %.1f s of virtual time\n",
		res.counter, res.expected, verdict, doubles, res.elapsed.Seconds())
}

// runRolloutCommand runs -scenario rollout with the shared flags; -processes
// is one count here, 5 unless given.
func runRolloutCommand(fs *flag.FlagSet, procs string, hold, minLat, maxLat time.Duration, seed uint64, phaseHold time.Duration) error {
	cfg := rolloutConfig{processes: 5, phaseHold: phaseHold, hold: hold, minLatency: minLat, maxLatency: maxLat, seed: seed}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "processes" })
	if given {
		p, err := strconv.Atoi(strings.TrimSpace(procs))
		if err != nil || p <= 0 {
			return fmt.Errorf("-scenario rollout takes one positive process count, got %q", procs)
		}
		cfg.processes = p
	}
	switch {
	case cfg.phaseHold <= 0:
		return fmt.Errorf("-phase-hold must be positive, got %v", cfg.phaseHold)
	case cfg.minLatency < 0 || cfg.maxLatency < cfg.minLatency:
		return fmt.Errorf("latency bounds %v..%v are invalid", cfg.minLatency, cfg.maxLatency)
	}
	started := time.Now()
	res, err := runRollout(cfg)
	if err != nil {
		return err
	}
	fmt.Printf("lockbench: rollout legacy -> combined -> new -> combined -> legacy on the embedded model\n"+
		"(virtual time; %d processes following the phase flag, each phase held %v, request latency %v–%v, hold %v, seed %d)\n\n",
		cfg.processes, cfg.phaseHold, cfg.minLatency, cfg.maxLatency, cfg.hold, cfg.seed)
	printRollout(os.Stdout, cfg, res)
	fmt.Printf("(simulated in %.1f s of real time)\n", time.Since(started).Seconds())
	if res.counter != res.expected {
		return fmt.Errorf("counter %d != expected %d: exclusion broke", res.counter, res.expected)
	}
	for _, p := range res.phases {
		if p.doubles != 0 {
			return fmt.Errorf("phase %s: %d double grants", p.name, p.doubles)
		}
	}
	return nil
}
