package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// tombstoneLockID is the one lock id the tombstones scenario takes.
const tombstoneLockID = "hot"

// tombstoneConfig is the tombstones scenario: n sequential acquisitions of
// one id by one process with the new algorithm, one every period of virtual
// time, with the read cost sampled over a window of acquisitions at each
// checkpoint.
type tombstoneConfig struct {
	n      int
	period time.Duration
	window int // acquisitions per sample
}

// tombstoneSample is the read cost over the window of acquisitions that
// ends at acquisition done.
type tombstoneSample struct {
	done int
	// floorMean and floorMax are the tombstones (and expired cells) the
	// algorithm's own reads stepped over, per read, in the window: what the
	// shipped code pays.
	floorMean float64
	floorMax  int64
	// naive is what one whole-row read of the partition (no floor) steps
	// over at the end of the window: what a read that does not start at a
	// floor would pay.
	naive int64
}

// checkpoints returns the acquisition counts at which windows end: the
// first window, 10%, 25%, 50% and the last.
func (c tombstoneConfig) checkpoints() []int {
	var out []int
	for _, d := range []int{c.window, c.n / 10, c.n / 4, c.n / 2, c.n} {
		if d >= c.window && (len(out) == 0 || d > out[len(out)-1]) {
			out = append(out, d)
		}
	}
	return out
}

// runSimTombstones runs the scenario on one model store (one replica, the
// default gc_grace of ten days, so no tombstone is purged during the run).
// Virtual time moves only between acquisitions: nothing waits, so no
// renewal ever comes due and the run is deterministic.
func runSimTombstones(ctx context.Context, cfg tombstoneConfig) ([]tombstoneSample, error) {
	clk := model.NewManualClock(0)
	store := model.New(clk)
	l, err := queuelock.New(store, &queuelock.Options{Clock: clk, ProcessID: "p0"})
	if err != nil {
		return nil, err
	}
	defer l.Close(context.WithoutCancel(ctx))
	var out []tombstoneSample
	err = acquireSequentially(ctx, l, clk, store, cfg, func(done int) error {
		s, err := sampleTombstones(ctx, store, done)
		if err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// acquireSequentially takes and releases tombstoneLockID cfg.n times with
// l, moving clk by cfg.period after each, calls sample at every checkpoint
// (with the store's stats covering the window of cfg.window acquisitions
// before it), and resets the stats where each window starts.
func acquireSequentially(ctx context.Context, l lockstep.Locker, clk *model.ManualClock, store *model.Store, cfg tombstoneConfig, sample func(done int) error) error {
	marks := cfg.checkpoints()
	for done := 0; done < cfg.n; {
		h, err := l.Lock(ctx, tombstoneLockID)
		if err != nil {
			return fmt.Errorf("acquisition %d: %w", done+1, err)
		}
		if err := h.Unlock(ctx); err != nil {
			return fmt.Errorf("release %d: %w", done+1, err)
		}
		done++
		clk.Advance(cfg.period)
		if len(marks) > 0 && done == marks[0] {
			if err := sample(done); err != nil {
				return err
			}
			marks = marks[1:]
		}
		if len(marks) > 0 && done == marks[0]-cfg.window {
			store.ResetStats() // the next window starts
		}
	}
	return nil
}

// sampleTombstones reads the algorithm's per-read cost since the last
// ResetStats, then makes one naive whole-row read.
func sampleTombstones(ctx context.Context, store *model.Store, done int) (tombstoneSample, error) {
	st := store.Stats()
	s := tombstoneSample{done: done, floorMax: st.MaxTombstonesPerRead}
	if st.Reads > 0 {
		s.floorMean = float64(st.TombstonesScanned) / float64(st.Reads)
	}
	if _, err := store.Read(ctx, queuelock.DefaultTable, tombstoneLockID, lockstep.Slice{}); err != nil {
		return s, fmt.Errorf("naive read after %d acquisitions: %w", done, err)
	}
	s.naive = store.Stats().LastReadTombstones
	return s, nil
}

// printTombstones prints the samples and the end/start ratios.
func printTombstones(w io.Writer, cfg tombstoneConfig, samples []tombstoneSample) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "after acquisitions\tfloor read: tombstones/read (mean)\t(max)\tnaive whole-row read: tombstones\t")
	for _, s := range samples {
		fmt.Fprintf(tw, "%d\t%.1f\t%d\t%d\t\n", s.done, s.floorMean, s.floorMax, s.naive)
	}
	tw.Flush()
	if len(samples) < 2 {
		return
	}
	first, second, last := samples[0], samples[1], samples[len(samples)-1]
	fmt.Fprintf(w, "\nend/start (windows of %d acquisitions, mean per read): floor read %s, naive read %s\n",
		cfg.window, ratioText(last.floorMean, first.floorMean), ratioText(float64(last.naive), float64(first.naive)))
	if len(samples) > 2 {
		fmt.Fprintf(w, "end/after %d: floor read %s, naive read %s\n", second.done,
			ratioText(last.floorMean, second.floorMean), ratioText(float64(last.naive), float64(second.naive)))
	}
}

// ratioText prints a/b, or "∞" when b is 0 and a is not.
func ratioText(a, b float64) string {
	switch {
	case b == 0 && a == 0:
		return "1.00"
	case b == 0:
		return "∞ (from 0)"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// runTombstonesCommand runs -scenario tombstones.
func runTombstonesCommand(o *options) error {
	if o.n <= 0 {
		return fmt.Errorf("-n must be positive, got %d", o.n)
	}
	cfg := tombstoneConfig{n: o.n, period: o.period, window: min(max(o.n/100, 1), 1000)}
	if cfg.period <= 0 {
		return fmt.Errorf("-period must be positive, got %v", cfg.period)
	}
	started := time.Now()
	switch o.algorithms {
	case "", string(algoNew):
	case string(algoLegacy):
		return runLegacyTombstonesCommand(o, cfg, started)
	default:
		return fmt.Errorf("-scenario tombstones runs one algorithm: -algorithms new (default) or legacy, got %q", o.algorithms)
	}
	if o.given("gc-grace") {
		return fmt.Errorf("-gc-grace applies to -algorithms legacy only")
	}
	if o.backend == "cassandra" {
		return runRealTombstonesCommand(o.real, cfg)
	}
	samples, err := runSimTombstones(context.Background(), cfg)
	if err != nil {
		return err
	}
	fmt.Printf("lockbench: %d sequential acquisitions of one id with the new algorithm, embedded model\n"+
		"(virtual time, one acquisition every %v; tombstones and expired cells stepped over per read)\n\n", cfg.n, cfg.period)
	printTombstones(os.Stdout, cfg, samples)
	fmt.Printf("\n(ran in %.1f s of real time)\n", time.Since(started).Seconds())
	return nil
}
