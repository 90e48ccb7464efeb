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

// peerRun is one cell of the peers scenario: contenders processes of one
// algorithm taking one hot id for a fixed duration.
type peerRun struct {
	algorithm  algorithm
	contenders int
	duration   time.Duration
	procs      []procResult
}

// peerStats are the figures of a peer run.
type peerStats struct {
	acquisitions int
	throughput   float64 // acquisitions per second
	// handoff is, between consecutive acquisitions of the id (whoever made
	// them), the time from the previous holder calling Unlock to the next
	// Lock returning: what the lock adds between two critical sections.
	handoffP50, handoffP99 time.Duration
	jain                   float64 // of the contenders' acquisition counts
	maxWait                time.Duration
	// reads is the store reads of all contenders (0 where not counted),
	// readsPerAcq per acquisition and readRate per second.
	reads                 int64
	readsPerAcq, readRate float64
	// overlaps counts acquisitions that returned before the previous
	// holder had begun to release: double grants. It must be 0.
	overlaps int
}

// acquisition is one acquisition of a peer run, on the common time line.
type acquisition struct{ at, released time.Duration }

// summarizePeers computes peerStats. The processes share the machine's
// clock, so their acquisitions can be put on one time line.
func summarizePeers(r peerRun) peerStats {
	var all []acquisition
	counts := make([]float64, len(r.procs))
	for i, p := range r.procs {
		counts[i] = float64(len(p.At))
		for k := range p.At {
			rel := p.At[k]
			if k < len(p.Released) {
				rel = p.Released[k]
			}
			all = append(all, acquisition{at: p.At[k], released: rel})
		}
	}
	slices.SortFunc(all, func(a, b acquisition) int { return int(a.at - b.at) })
	s := peerStats{acquisitions: len(all), jain: jain(counts), maxWait: summarizeWaits(r.waits()).max}
	for _, p := range r.procs {
		s.reads += p.Requests.Reads
	}
	if r.duration > 0 {
		s.throughput = float64(len(all)) / r.duration.Seconds()
		s.readRate = float64(s.reads) / r.duration.Seconds()
	}
	if len(all) > 0 {
		s.readsPerAcq = float64(s.reads) / float64(len(all))
	}
	var handoffs []time.Duration
	for i := 1; i < len(all); i++ {
		h := all[i].at - all[i-1].released
		if h <= 0 {
			s.overlaps++
			continue
		}
		handoffs = append(handoffs, h)
	}
	slices.Sort(handoffs)
	s.handoffP50, s.handoffP99 = percentile(handoffs, 50), percentile(handoffs, 99)
	return s
}

// waits returns the acquisition waits per process.
func (r peerRun) waits() [][]time.Duration {
	out := make([][]time.Duration, len(r.procs))
	for i, p := range r.procs {
		out[i] = p.Waits
	}
	return out
}

// printPeers prints, per contender count, every algorithm's figures with
// their ratio to the new algorithm's beside them.
func printPeers(w io.Writer, runs []peerRun) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "contenders\talgorithm\tthroughput\t×new\thandoff p50\t×new\thandoff p99\t×new\tJain\tmax wait\tacquisitions\treads/acq\treads/s\tdouble grants\t")
	ourStats := map[int]peerStats{} // the new algorithm's, by contenders
	for _, r := range runs {
		if r.algorithm == algoNew {
			ourStats[r.contenders] = summarizePeers(r)
		}
	}
	for _, r := range runs {
		s, ours := summarizePeers(r), ourStats[r.contenders]
		x := func(v, base float64) string {
			if base == 0 {
				return "–"
			}
			return fmt.Sprintf("%.2f", v/base)
		}
		reads := func(v float64, f string) string {
			if s.reads == 0 {
				return "–"
			}
			return fmt.Sprintf(f, v)
		}
		fmt.Fprintf(tw, "%d\t%s\t%.0f/s\t%s\t%s\t%s\t%s\t%s\t%.3f\t%s\t%d\t%s\t%s\t%d\t\n", r.contenders, r.algorithm,
			s.throughput, x(s.throughput, ours.throughput),
			ms(s.handoffP50), x(float64(s.handoffP50), float64(ours.handoffP50)),
			ms(s.handoffP99), x(float64(s.handoffP99), float64(ours.handoffP99)),
			s.jain, ms(s.maxWait), s.acquisitions, reads(s.readsPerAcq, "%.2f"), reads(s.readRate, "%.0f"), s.overlaps)
	}
	tw.Flush()
	fmt.Fprintln(w, "\n×new: the figure divided by the new algorithm's with as many contenders (throughput: higher is better;")
	fmt.Fprintln(w, "handoff: lower is better). handoff: from the holder calling Unlock to the next Lock returning.")
	fmt.Fprintln(w, "Jain: fairness of the contenders' acquisition counts. double grants: acquisitions returned before")
	fmt.Fprintln(w, "the previous holder began to release (must be 0). reads: the contenders' store reads (this module's")
	fmt.Fprintln(w, "algorithms only) per acquisition and per second. new-wake: new with wake-ups on release over UDP; new-handoff: new-wake with the handoff (a grant in one request).")
}

// runPeersCommand runs -scenario peers on the real backend: for every
// contender count, every algorithm in turn for -duration.
func runPeersCommand(o *options) error {
	if o.backend != "cassandra" {
		return fmt.Errorf("-scenario peers needs -backend cassandra -hosts … (and an etcd: scripts/etcd up)")
	}
	if o.duration <= 0 {
		return fmt.Errorf("-duration must be positive, got %v", o.duration)
	}
	counts, err := o.processCounts()
	if err != nil {
		return err
	}
	algos, version, cleanup, err := o.prepareRealRun([]algorithm{algoNew, algoLegacy, algoLWT, algoLWTNaive, algoEtcd}, realAlgorithms)
	if err != nil {
		return err
	}
	defer cleanup()
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	defer cancel()
	started := time.Now()
	tag := runTag()
	plainBefore, err := measurePlainRequest(ctx, o.real, "lockbench-plain-"+tag)
	if err != nil {
		return err
	}
	wakeKey, err := newWakeKey()
	if err != nil {
		return err
	}
	var runs []peerRun
	for _, p := range counts {
		for _, a := range algos {
			id := fmt.Sprintf("peers-%s-%s-%d", tag, a, p)
			jobs := make([]workerJob, p)
			for i := range jobs {
				jobs[i] = o.real.job(a, fmt.Sprintf("%s-%s%d-p%d", tag, a, p, i), id, 0, o.hold, o.poll)
				jobs[i].SlowPoll = o.slowPoll
				if a == algoNewWake || a == algoNewHandoff {
					jobs[i].WakeKey = wakeKey
				}
			}
			procs, err := runWorkers(jobs, o.duration)
			if err != nil {
				return fmt.Errorf("%s with %d contenders: %w", a, p, err)
			}
			runs = append(runs, peerRun{algorithm: a, contenders: p, duration: o.duration, procs: procs})
		}
	}
	fmt.Printf("lockbench: one hot lock id, %v per run, hold %v, poll %v; Cassandra %s at %s, etcd at %s;\n"+
		"every contender a separate OS process on this machine\n\n", o.duration, o.hold, o.poll, version, o.real.hosts, o.real.etcd)
	printPeers(os.Stdout, runs)
	pctx, pcancel := context.WithTimeout(context.Background(), prepareTimeout)
	defer pcancel()
	plainAfter, err := measurePlainRequest(pctx, o.real, "lockbench-plain-"+tag)
	if err != nil {
		return err
	}
	printPlainRequest(os.Stdout, plainBefore, plainAfter, runs)
	printTargets(os.Stdout, "against the strong LWT lock (lwt), same run", peerTargets(runs, o.real.replication, (plainBefore+plainAfter)/2))
	if o.pngPath != "" {
		title := fmt.Sprintf("handoff latency CDF per algorithm (Cassandra %s at %s, RF %d)", version, o.real.hosts, o.real.replication)
		if err := writeFile(o.pngPath, func(f *os.File) error { return plotHandoffCDF(f, title, runs) }); err != nil {
			return fmt.Errorf("writing -png: %w", err)
		}
	}
	fmt.Printf("\n(ran in %.1f s of real time)\n", time.Since(started).Seconds())
	return nil
}

// prepareRealRun is how the multi-process runs on a cluster (-scenario
// peers and service) start: the algorithms of -algorithms (def when it is
// empty) among allowed, the etcd peer they may need, and the cluster's
// keyspace and schema (within prepareTimeout). It returns the cluster's
// version and what stops the peer.
func (o *options) prepareRealRun(def, allowed []algorithm) (algos []algorithm, version string, cleanup func(), err error) {
	list := o.algorithms
	if list == "" {
		list = joinAlgorithms(def)
	}
	if algos, err = parseAlgorithms(list, allowed); err != nil {
		return nil, "", nil, err
	}
	if o.real, cleanup, err = o.real.withEtcdPeer(algos); err != nil {
		return nil, "", nil, err
	}
	if o.backend != "cassandra" {
		// Only -scenario service runs without Cassandra, and only the
		// etcd peer's algorithms (runServiceCommand).
		if i := slices.IndexFunc(algos, func(a algorithm) bool { return !inEtcdPeer(a) }); i >= 0 {
			cleanup()
			return nil, "", nil, fmt.Errorf("algorithm %s needs -backend cassandra -hosts …", algos[i])
		}
		return algos, "", cleanup, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	defer cancel()
	if version, err = prepareCassandra(ctx, o.real); err != nil {
		cleanup()
		return nil, "", nil, err
	}
	return algos, version, cleanup, nil
}
