package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Cassandra's default per-read tombstone thresholds (cassandra.yaml):
// tombstone_warn_threshold logs a warning, tombstone_failure_threshold
// aborts the read.
const (
	tombstoneWarnThreshold    = 1000
	tombstoneFailureThreshold = 100000
)

// defaultLegacyGCGrace is the legacy tables' gc_grace unless -gc-grace says
// otherwise: schema.DefaultLegacyGCGrace.
const defaultLegacyGCGrace = 3 * time.Hour

// legacyTombstoneSample is the read cost of the legacy algorithm's own
// reads (which read whole rows: there is no floor) over the window of
// acquisitions that ends at acquisition done.
type legacyTombstoneSample struct {
	done   int
	mean   float64 // tombstones stepped over per read
	max    int64
	purged int64 // tombstones the model's compaction purged in the window
}

// runSimLegacyTombstones is the tombstones scenario with the legacy
// algorithm: cfg.n sequential acquisitions of one id by one process, one
// every cfg.period of virtual time, on one model replica whose gc_grace is
// gcGrace (the model purges a tombstone at its first access after
// gc_grace, as a compaction running at once would).
func runSimLegacyTombstones(ctx context.Context, cfg tombstoneConfig, gcGrace time.Duration) ([]legacyTombstoneSample, error) {
	clk := model.NewManualClock(0)
	store := model.New(clk, model.WithGCGrace(gcGrace))
	l, err := shadowlock.New(store, &shadowlock.Options{Clock: clk, ProcessID: "p0"})
	if err != nil {
		return nil, err
	}
	defer l.Close(context.WithoutCancel(ctx))
	var out []legacyTombstoneSample
	err = acquireSequentially(ctx, l, clk, store, cfg, func(done int) error {
		st := store.Stats()
		s := legacyTombstoneSample{done: done, max: st.MaxTombstonesPerRead, purged: st.Purged}
		if st.Reads > 0 {
			s.mean = float64(st.TombstonesScanned) / float64(st.Reads)
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// thresholdRate is the sustained acquisition rate of one legacy id at which
// its reads step over threshold tombstones, if each acquisition leaves one
// tombstone per row that lives life.
func thresholdRate(threshold int, life time.Duration) float64 {
	return float64(threshold) / life.Seconds()
}

// printLegacyTombstones prints the samples and the rates at which the
// thresholds are reached for the run's gc_grace.
func printLegacyTombstones(w io.Writer, cfg tombstoneConfig, gcGrace time.Duration, samples []legacyTombstoneSample) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "after acquisitions\twhole-row read: tombstones/read (mean)\t(max)\tpurged in window\t")
	for _, s := range samples {
		fmt.Fprintf(tw, "%d\t%.1f\t%d\t%d\t\n", s.done, s.mean, s.max, s.purged)
	}
	tw.Flush()
	rate := float64(time.Second) / float64(cfg.period)
	fmt.Fprintf(w, "\nAt %.0f acquisitions/s each read steps over about min(acquisitions so far, rate × gc_grace = %.0f) tombstones.\n",
		rate, rate*gcGrace.Seconds())
	fmt.Fprintf(w, "gc_grace %v: reads reach tombstone_warn_threshold (%d) at a sustained %.3g acquisitions/s of one id,\n",
		gcGrace, tombstoneWarnThreshold, thresholdRate(tombstoneWarnThreshold, gcGrace))
	fmt.Fprintf(w, "and tombstone_failure_threshold (%d, reads abort) at %.3g/s (compaction lag can stretch a tombstone's life to ~3× gc_grace).\n",
		tombstoneFailureThreshold, thresholdRate(tombstoneFailureThreshold, gcGrace))
}
