package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
)

// roundtripSamples is how many uncontended acquire + release pairs the
// roundtrips scenario makes per mode after the first.
const roundtripSamples = 20

// callCount is the requests of one Lock or Unlock call, by kind, and its
// sequential round trips (tally.sequential: fewer than the requests when
// some travel side by side).
type callCount struct{ reads, puts, deletes, sequential int64 }

func (c callCount) total() int64 { return c.reads + c.puts + c.deletes }

func countOf(t *tally) callCount {
	return callCount{reads: t.reads.Load(), puts: t.puts.Load(), deletes: t.deletes.Load(), sequential: t.sequential()}
}

// pairCount is one uncontended acquire + release.
type pairCount struct {
	acquire, release callCount
	took             time.Duration // Lock through Unlock, on the run's clock
}

func (p pairCount) total() int64 { return p.acquire.total() + p.release.total() }

// sequential is the pair's sequential round trips: the acquire's, then the
// release's.
func (p pairCount) sequential() int64 { return p.acquire.sequential + p.release.sequential }

// roundtripAlgorithms are what the roundtrips scenario measures, in table
// order: the three modes, then the new mode with fencing tokens drawn after
// the claim and beside it.
var roundtripAlgorithms = []algorithm{algoLegacy, algoNew, algoCombined, algoNewFenced, algoNewEvidence}

// roundtripResult is the roundtrips scenario's outcome for one mode.
type roundtripResult struct {
	algorithm algorithm
	first     pairCount   // the first pair of a fresh process (cold caches)
	steady    []pairCount // the pairs after it
}

// typical returns the steady pair with the median sequential round trips
// (ties: the median request count).
func (r roundtripResult) typical() pairCount {
	s := slices.Clone(r.steady)
	slices.SortStableFunc(s, func(a, b pairCount) int {
		if d := a.sequential() - b.sequential(); d != 0 {
			return int(d)
		}
		return int(a.total() - b.total())
	})
	return s[len(s)/2]
}

// maxSteady is the most sequential round trips of the steady pairs.
func (r roundtripResult) maxSteady() int64 {
	var m int64
	for _, p := range r.steady {
		m = max(m, p.sequential())
	}
	return m
}

// measureRoundtrips makes 1+samples uncontended Lock + Unlock pairs of id
// with a fresh process of algorithm a on store, counting the requests of
// each call on its path (the counting wrapper of newLockstepContender, so the
// figures come from the code that ships). between runs after each pair.
func measureRoundtrips(ctx context.Context, a algorithm, p lockerParams, id string, samples int, between func()) (roundtripResult, error) {
	c, err := newLockstepContender(a, p)
	if err != nil {
		return roundtripResult{}, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	clk := p.clock
	res := roundtripResult{algorithm: a}
	for i := range 1 + samples {
		var acq, rel tally
		t0 := clk.Now()
		h, err := c.Lock(withTally(ctx, &acq), id)
		if err != nil {
			return res, fmt.Errorf("%s: acquisition %d: %w", a, i+1, err)
		}
		if err := h.Unlock(withTally(ctx, &rel)); err != nil {
			return res, fmt.Errorf("%s: release %d: %w", a, i+1, err)
		}
		pc := pairCount{acquire: countOf(&acq), release: countOf(&rel), took: time.Duration(clk.Now()-t0) * time.Microsecond}
		if i == 0 {
			res.first = pc
		} else {
			res.steady = append(res.steady, pc)
		}
		between()
	}
	return res, nil
}

// roundtripLatency is how long, in real time, every request of the sim
// roundtrips scenario takes: long enough that requests a call sends side by
// side are in flight together whatever the goroutine scheduling, on a
// machine with a load of 7 on 2 cores too, so the sequential count does
// not depend on the machine's load.
const roundtripLatency = 10 * time.Millisecond

// latencyStore delays every request by a fixed real time (roundtripLatency).
type latencyStore struct {
	lockstep.Store
	d time.Duration
}

func (s latencyStore) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	time.Sleep(s.d)
	return s.Store.Put(ctx, table, row, cells...)
}

func (s latencyStore) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	time.Sleep(s.d)
	return s.Store.Delete(ctx, table, row, ts, columns...)
}

// PutDelete delays as the others do; the store under it is a model store,
// which has PutDelete.
func (s latencyStore) PutDelete(ctx context.Context, table, row string, ts int64, columns []string, cells ...lockstep.Cell) error {
	time.Sleep(s.d)
	return s.Store.(lockstep.Mutator).PutDelete(ctx, table, row, ts, columns, cells...)
}

func (s latencyStore) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	time.Sleep(s.d)
	return s.Store.Read(ctx, table, row, sl)
}

// runSimRoundtrips measures every mode on its own fresh model store. Every
// request takes roundtripLatency of real time, none of virtual time
// (nothing else contends), so the clock only moves by the millisecond
// between pairs; renewals never come due.
func runSimRoundtrips(algos []algorithm) ([]roundtripResult, error) {
	var out []roundtripResult
	for _, a := range algos {
		clk := model.NewManualClock(0)
		store := latencyStore{Store: model.New(clk), d: roundtripLatency}
		r, err := measureRoundtrips(context.Background(), a, lockerParams{store: store, clock: clk, process: "p0", poll: 10 * time.Millisecond},
			"uncontended", roundtripSamples, func() { clk.Advance(time.Millisecond) })
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// printRoundtrips prints one row per mode: the total of a steady pair (the
// headline), its split by call and kind, the first pair and the worst steady
// one. withTime adds the typical pair's duration (real backend).
func printRoundtrips(w io.Writer, results []roundtripResult, withTime bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "mode\tacquire + release\tacquire\trelease\trequests\treads\tputs\tdeletes\tfirst pair\tmax steady\t"
	if withTime {
		head += "took (median)\t"
	}
	fmt.Fprintln(tw, head)
	for _, r := range results {
		t := r.typical()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t", r.algorithm, t.sequential(), t.acquire.sequential, t.release.sequential,
			t.total(), t.acquire.reads+t.release.reads, t.acquire.puts+t.release.puts, t.acquire.deletes+t.release.deletes,
			r.first.sequential(), r.maxSteady())
		if withTime {
			fmt.Fprintf(tw, "%s\t", ms(medianTook(r.steady)))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nacquire + release: sequential store round trips of a steady uncontended pair (median of %d): the longest\n", roundtripSamples)
	fmt.Fprintln(w, "chain of the call's requests each sent after the previous one returned, counted on the caller's path by a")
	fmt.Fprintln(w, "counting store around the shipped lock code; requests: all of them, side by side or not, split by kind;")
	fmt.Fprintln(w, "first pair: a fresh process's first (cold caches: the queue lock also reads its floor cell, in parallel).")
	fmt.Fprintln(w, "The seed's algorithms need 6–7; the target for new is at most 3, for combined at most 6.")
	fmt.Fprintln(w, "new-fenced draws a fencing token after its claim won; new-evidence draws it beside its claim, or takes it")
	fmt.Fprintln(w, "with no request from values its last such draw reserved ahead (queuelock.Options.Evidence), and its")
	fmt.Fprintln(w, "release records the token in the same request as its deletes.")
}

// medianTook is the median duration of pairs.
func medianTook(pairs []pairCount) time.Duration {
	ds := make([]time.Duration, len(pairs))
	for i, p := range pairs {
		ds[i] = p.took
	}
	slices.Sort(ds)
	return percentile(ds, 50)
}

// runRoundtripsCommand runs -scenario roundtrips.
func runRoundtripsCommand(o *options) error {
	list := o.algorithms
	if list == "" {
		list = joinAlgorithms(roundtripAlgorithms)
	}
	algos, err := parseAlgorithms(list, roundtripAlgorithms)
	if err != nil {
		return err
	}
	if o.backend == "cassandra" {
		results, version, err := runRealRoundtrips(o.real, algos)
		if err != nil {
			return err
		}
		fmt.Printf("lockbench: sequential store round trips of an uncontended acquire + release, Cassandra %s at %s\n\n", version, o.real.hosts)
		printRoundtrips(os.Stdout, results, true)
		printTargets(os.Stdout, "sequential requests", roundtripTargets(results))
		return nil
	}
	results, err := runSimRoundtrips(algos)
	if err != nil {
		return err
	}
	fmt.Println("lockbench: sequential store round trips of an uncontended acquire + release, embedded model")
	fmt.Println()
	printRoundtrips(os.Stdout, results, false)
	printTargets(os.Stdout, "sequential requests", roundtripTargets(results))
	return nil
}
