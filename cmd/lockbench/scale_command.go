package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
	"time"
)

// scaleProcessesDefault is the scale scenario's process count when
// -processes is not given.
const scaleProcessesDefault = 8

// scaleRun is one row of the scale table.
type scaleRun struct {
	algorithm algorithm
	processes int
	duration  time.Duration
	res       scaleResult
}

// runScaleCommand runs -scenario scale on the chosen backend: for every
// process count, every algorithm in turn for -duration.
func runScaleCommand(o *options) error {
	if o.ids <= 0 {
		return fmt.Errorf("-ids must be positive, got %d", o.ids)
	}
	if o.duration <= 0 {
		return fmt.Errorf("-duration must be positive, got %v", o.duration)
	}
	counts := []int{scaleProcessesDefault}
	if o.given("processes") {
		var err error
		if counts, err = o.processCounts(); err != nil {
			return err
		}
	}
	allowed, list := lockstepAlgorithms, joinAlgorithms(lockstepAlgorithms)
	if o.backend == "cassandra" {
		allowed = []algorithm{algoNew, algoLegacy, algoCombined, algoLWT, algoLWTNaive}
		list = joinAlgorithms([]algorithm{algoNew, algoLegacy, algoLWT})
	}
	if o.algorithms != "" {
		list = o.algorithms
	}
	algos, err := parseAlgorithms(list, allowed)
	if err != nil {
		return err
	}
	started := time.Now()
	where := fmt.Sprintf("the embedded model (virtual time; request latency %v–%v, seed %d)", o.minLat, o.maxLat, o.seed)
	if o.backend == "cassandra" {
		ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
		defer cancel()
		version, err := prepareCassandra(ctx, o.real)
		if err != nil {
			return err
		}
		where = fmt.Sprintf("Cassandra %s at %s (keyspace %s, RF %d; every process a separate OS process)", version, o.real.hosts, o.real.keyspace, o.real.replication)
	}
	tag := runTag()
	var runs []scaleRun
	for _, p := range counts {
		for _, a := range algos {
			cfg := scaleConfig{processes: p, ids: o.ids, duration: o.duration, poll: o.poll}
			var res scaleResult
			if o.backend == "sim" {
				res, err = runSimScale(cfg, a, o.minLat, o.maxLat, o.seed)
			} else {
				jobs := make([]scaleJob, p)
				for i := range jobs {
					jobs[i] = scaleJob{Algorithm: a, Process: fmt.Sprintf("%s-scale-%s%d-p%d", tag, a, p, i), Hosts: splitList(o.real.hosts),
						Keyspace: o.real.keyspace, Prefix: fmt.Sprintf("scale-%s-%s-%d", tag, a, p), IDs: o.ids, Poll: o.poll, Seed: o.seed + uint64(i)*1000}
				}
				res, err = runScaleWorkers(jobs, o.duration)
			}
			if err != nil {
				return fmt.Errorf("scale, %s with %d processes: %w", a, p, err)
			}
			runs = append(runs, scaleRun{algorithm: a, processes: p, duration: o.duration, res: res})
		}
	}
	fmt.Printf("lockbench: scale scenario on %s;\n%d ids, %d acquisition loops per process on one Locker, %v per run, poll %v;\n%s\n\n",
		where, o.ids, scaleLoops, o.duration, o.poll, scaleHoldText)
	printScale(os.Stdout, runs)
	fmt.Printf("\n(ran in %.1f s of real time)\n", time.Since(started).Seconds())
	return nil
}

// scaleStats are the figures of one scale run.
type scaleStats struct {
	throughput              float64 // acquisitions per second
	p50, p99                time.Duration
	readsPerAcq, writesPerA float64
	heapPerLocker           float64 // bytes
}

func summarizeScale(r scaleRun) scaleStats {
	w := slices.Clone(r.res.Waits)
	slices.Sort(w)
	s := scaleStats{p50: percentile(w, 50), p99: percentile(w, 99)}
	if r.duration > 0 {
		s.throughput = float64(r.res.Acquisitions) / r.duration.Seconds()
	}
	if n := float64(r.res.Acquisitions); n > 0 {
		s.readsPerAcq, s.writesPerA = float64(r.res.Reads)/n, float64(r.res.Writes)/n
	}
	if r.res.Lockers > 0 {
		s.heapPerLocker = float64(r.res.Heap) / float64(r.res.Lockers)
	}
	return s
}

// printScale prints the scale table, each figure beside its ratio to the new
// algorithm's with as many processes.
func printScale(w io.Writer, runs []scaleRun) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "processes\talgorithm\tacquisitions/s\t×new\twait p50\twait p99\t×new\treads/acq\twrites/acq\theap/Locker\tids taken\tacquisitions\t")
	ours := map[int]scaleStats{}
	for _, r := range runs {
		if r.algorithm == algoNew {
			ours[r.processes] = summarizeScale(r)
		}
	}
	x := func(v, base float64) string {
		if base == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", v/base)
	}
	for _, r := range runs {
		s, o := summarizeScale(r), ours[r.processes]
		fmt.Fprintf(tw, "%d\t%s\t%.0f\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t%.0f KiB\t%d\t%d\t\n", r.processes, r.algorithm,
			s.throughput, x(s.throughput, o.throughput), ms(s.p50), ms(s.p99), x(float64(s.p99), float64(o.p99)),
			s.readsPerAcq, s.writesPerA, s.heapPerLocker/1024, r.res.IDs, r.res.Acquisitions)
	}
	tw.Flush()
	fmt.Fprintln(w, "\n×new: divided by the new algorithm's figure with as many processes. reads/acq, writes/acq: every store")
	fmt.Fprintln(w, "request of the processes (acquire, release, renewals) over their acquisitions; LWT: every conditional")
	fmt.Fprintln(w, "statement counts as a write (each is a Paxos round that reads and writes). heap/Locker: what a GC frees")
	fmt.Fprintln(w, "when a process's Locker, after the run, is closed and dropped. ids taken: the most distinct ids one process took.")
}
