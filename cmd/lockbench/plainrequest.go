package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The peers scenario's yardstick: the latency of one plain request, a
// QUORUM read of one lock row as a queue lock's confirming read makes it,
// sent one after another from the parent process on an idle row, before
// and after the contender runs. Handoff latencies are then printed in
// these units (round trips of the same run).

// plainSlice is what a queue lock reads of a row whose floor is 0: the
// columns from the 20-digit stamp of time 0 on (docs/algorithms.md, section
// 4.1), so the plain read is the same statement as the lock's.
var plainSlice = lockstep.Slice{From: "00000000000000000000"}

// plainReads is how many reads one measurement sends.
const plainReads = 200

// measurePlainRequest returns the median latency of plainReads sequential
// reads of row through the production Store.
func measurePlainRequest(ctx context.Context, o realOptions, row string) (time.Duration, error) {
	s, err := connect(splitList(o.hosts))
	if err != nil {
		return 0, err
	}
	defer s.Close()
	store, err := newCassandraStore(s, o.keyspace)
	if err != nil {
		return 0, err
	}
	ds := make([]time.Duration, 0, plainReads)
	for range plainReads {
		t0 := time.Now()
		if _, err := store.Read(ctx, queuelock.DefaultTable, row, plainSlice); err != nil {
			return 0, fmt.Errorf("plain read: %w", err)
		}
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	return percentile(ds, 50), nil
}

// printPlainRequest prints the yardstick and every run's handoff p50 in
// its units (the mean of the measurements before and after).
func printPlainRequest(w io.Writer, before, after time.Duration, runs []peerRun) {
	rt := (before + after) / 2
	fmt.Fprintf(w, "\nplain request (one QUORUM read of an idle lock row, %d sequential, from the parent): p50 %s before the runs, %s after\n",
		plainReads, ms(before), ms(after))
	if rt <= 0 {
		return
	}
	fmt.Fprintln(w, "handoff p50 in plain-request round trips (their mean):")
	for _, r := range runs {
		s := summarizePeers(r)
		fmt.Fprintf(w, "  %d contenders, %s: %.2f\n", r.contenders, r.algorithm, float64(s.handoffP50)/float64(rt))
	}
}
