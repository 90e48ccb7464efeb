package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/queuelock"
)

// naiveSamples is how many naive whole-row reads are timed at each
// checkpoint of the real tombstones scenario.
const naiveSamples = 5

// realTombstoneSample is the read latency over the window of acquisitions
// that ends at acquisition done, on a real cluster.
type realTombstoneSample struct {
	done           int
	reads          int           // reads the algorithm made in the window
	p50, p99       time.Duration // of those reads
	naive          time.Duration // median naive whole-row read at the end of the window
	naiveErr       error         // why the naive reads failed, if they did
	windowDuration time.Duration
}

// timedStore records the duration of every Read while recording is on.
type timedStore struct {
	lockstep.Store
	mu    sync.Mutex
	on    bool
	reads []time.Duration
}

func (s *timedStore) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	t0 := time.Now()
	cells, err := s.Store.Read(ctx, table, row, sl)
	d := time.Since(t0)
	s.mu.Lock()
	if s.on {
		s.reads = append(s.reads, d)
	}
	s.mu.Unlock()
	return cells, err
}

// record starts a window (on) or ends it, returning its reads, sorted.
func (s *timedStore) record(on bool) []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.reads
	s.on, s.reads = on, nil
	slices.Sort(out)
	return out
}

// runRealTombstones makes cfg.n sequential acquisitions of one fresh id
// with the new algorithm on a real cluster, timing the algorithm's reads
// over a window at each checkpoint and, after it, naive whole-row reads of
// the same partition.
func runRealTombstones(ctx context.Context, o realOptions, cfg tombstoneConfig, progress io.Writer) ([]realTombstoneSample, error) {
	s, err := connect(splitList(o.hosts))
	if err != nil {
		return nil, err
	}
	defer s.Close()
	inner, err := newCassandraStore(s, o.keyspace)
	if err != nil {
		return nil, err
	}
	store := &timedStore{Store: inner, on: true}
	tag := runTag()
	l, err := queuelock.New(store, &queuelock.Options{ProcessID: "tomb-" + tag})
	if err != nil {
		return nil, err
	}
	defer l.Close(context.WithoutCancel(ctx))
	id := "tombstones-" + tag
	var out []realTombstoneSample
	marks := cfg.checkpoints()
	windowStart := time.Now()
	for done := 0; done < cfg.n; {
		h, err := l.Lock(ctx, id)
		if err != nil {
			return out, fmt.Errorf("acquisition %d: %w", done+1, err)
		}
		if err := h.Unlock(ctx); err != nil {
			return out, fmt.Errorf("release %d: %w", done+1, err)
		}
		done++
		if len(marks) > 0 && done == marks[0] {
			reads := store.record(false)
			smp := realTombstoneSample{done: done, reads: len(reads), p50: percentile(reads, 50), p99: percentile(reads, 99),
				windowDuration: time.Since(windowStart)}
			smp.naive, smp.naiveErr = timeNaiveReads(ctx, inner, id)
			out = append(out, smp)
			fmt.Fprintf(progress, "lockbench: %d acquisitions done\n", done)
			marks = marks[1:]
		}
		if len(marks) > 0 && done == marks[0]-cfg.window {
			store.record(true)
			windowStart = time.Now()
		}
	}
	return out, nil
}

// timeNaiveReads times naiveSamples whole-row reads of the lock's partition
// and returns the median, or the first error (Cassandra aborts a read that
// steps over more than tombstone_failure_threshold tombstones).
func timeNaiveReads(ctx context.Context, store lockstep.Store, id string) (time.Duration, error) {
	var ds []time.Duration
	for range naiveSamples {
		t0 := time.Now()
		if _, err := store.Read(ctx, queuelock.DefaultTable, id, lockstep.Slice{}); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	return percentile(ds, 50), nil
}

// printRealTombstones prints the samples and the end/start ratio of the
// algorithm's p99 read latency.
func printRealTombstones(w io.Writer, cfg tombstoneConfig, samples []realTombstoneSample) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "after acquisitions\tfloor reads\tp50\tp99\twindow took\tnaive whole-row read (median of %d)\t\n", naiveSamples)
	var failures []string
	for _, s := range samples {
		naive := ms(s.naive)
		if s.naiveErr != nil {
			naive = fmt.Sprintf("failed (%d)", len(failures)+1)
			failures = append(failures, fmt.Sprintf("(%d) after %d acquisitions: %v", len(failures)+1, s.done, s.naiveErr))
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%.1f s\t%s\t\n", s.done, s.reads, ms(s.p50), ms(s.p99), s.windowDuration.Seconds(), naive)
	}
	tw.Flush()
	for _, f := range failures {
		fmt.Fprintln(w, f)
	}
	if len(samples) < 2 {
		return
	}
	first, last := samples[0], samples[len(samples)-1]
	fmt.Fprintf(w, "\nend/start p99 read latency (windows of %d acquisitions): floor reads %s\n",
		cfg.window, ratioText(float64(last.p99), float64(first.p99)))
}

// runRealTombstonesCommand runs -scenario tombstones -backend cassandra.
func runRealTombstonesCommand(o realOptions, cfg tombstoneConfig) error {
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	defer cancel()
	version, err := prepareCassandra(ctx, o)
	if err != nil {
		return err
	}
	started := time.Now()
	samples, err := runRealTombstones(context.Background(), o, cfg, os.Stderr)
	fmt.Printf("lockbench: %d sequential acquisitions of one id with the new algorithm, Cassandra %s at %s\n"+
		"(latency of the algorithm's own reads, which start at the floor, against a naive whole-row read)\n\n", cfg.n, version, o.hosts)
	printRealTombstones(os.Stdout, cfg, samples)
	fmt.Printf("\n(ran in %.1f s of real time)\n", time.Since(started).Seconds())
	return err
}
