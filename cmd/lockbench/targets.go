package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// A target is one performance goal of the project (BENCHMARKS.md, Targets),
// judged on the figures of one run: the goal as text, what the run measured,
// and whether that meets it. Every goal compares figures from the same run,
// so the machine's speed cancels out as far as it can.
type target struct {
	goal     string
	measured string
	met      bool
}

// verdict is the word printed for a target.
func (t target) verdict() string {
	if t.met {
		return "met"
	}
	return "MISSED"
}

// printTargets prints targets under a heading, one row each.
func printTargets(w io.Writer, heading string, ts []target) {
	if len(ts) == 0 {
		return
	}
	fmt.Fprintf(w, "\nTargets: %s\n", heading)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range ts {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.goal, t.measured, t.verdict())
	}
	tw.Flush()
}

// ourBest is the configuration of the queue lock the peer targets judge:
// the handoff when the run has it, else wake-ups, else the
// plain queue lock.
func ourBest(runs []peerRun) (algorithm, bool) {
	for _, a := range []algorithm{algoNewHandoff, algoNewWake, algoNew} {
		for _, r := range runs {
			if r.algorithm == a {
				return a, true
			}
		}
	}
	return "", false
}

// peerTargets judges the hot-lock goals against the strong LWT lock (lwt)
// of the same run, on a cluster of nodes nodes; rt is the run's plain-request
// latency (0: not measured). It judges nothing when the run has no lwt.
//
//   - 5 contenders: throughput ≥ 1.3× lwt's on 1 node, ≥ 2× on 3 nodes;
//     handoff p50 and p99 at most lwt's; handoff p50 ≤ 2.2 plain requests.
//   - 20 and 40 contenders: throughput ≥ 2× lwt's, reads per acquisition ≤ 3.
func peerTargets(runs []peerRun, nodes int, rt time.Duration) []target {
	ours, ok := ourBest(runs)
	if !ok {
		return nil
	}
	find := func(a algorithm, n int) (peerStats, bool) {
		for _, r := range runs {
			if r.algorithm == a && r.contenders == n {
				return summarizePeers(r), true
			}
		}
		return peerStats{}, false
	}
	var ts []target
	for _, n := range []int{5, 20, 40} {
		us, ok1 := find(ours, n)
		them, ok2 := find(algoLWT, n)
		if !ok1 || !ok2 {
			continue
		}
		need := 2.0
		if n == 5 && nodes == 1 {
			need = 1.3
		}
		ratio := 0.0
		if them.throughput > 0 {
			ratio = us.throughput / them.throughput
		}
		ts = append(ts, target{
			goal:     fmt.Sprintf("%d contenders, %d node(s): %s throughput ≥ %.1f× lwt's", n, nodes, ours, need),
			measured: fmt.Sprintf("%.2f× (%.0f vs %.0f/s)", ratio, us.throughput, them.throughput),
			met:      ratio >= need,
		})
		if n == 5 {
			ts = append(ts,
				target{
					goal:     fmt.Sprintf("5 contenders, %d node(s): %s handoff p50 ≤ lwt's", nodes, ours),
					measured: fmt.Sprintf("%s vs %s", ms(us.handoffP50), ms(them.handoffP50)),
					met:      us.handoffP50 <= them.handoffP50,
				},
				target{
					goal:     fmt.Sprintf("5 contenders, %d node(s): %s handoff p99 ≤ lwt's", nodes, ours),
					measured: fmt.Sprintf("%s vs %s", ms(us.handoffP99), ms(them.handoffP99)),
					met:      us.handoffP99 <= them.handoffP99,
				})
			if rt > 0 {
				rts := float64(us.handoffP50) / float64(rt)
				ts = append(ts, target{
					goal:     fmt.Sprintf("5 contenders, %d node(s): %s handoff p50 ≤ 2.2 plain requests", nodes, ours),
					measured: fmt.Sprintf("%.2f (plain request %s)", rts, ms(rt)),
					met:      rts <= 2.2,
				})
			}
			continue
		}
		ts = append(ts, target{
			goal:     fmt.Sprintf("%d contenders, %d node(s): %s reads per acquisition ≤ 3", n, nodes, ours),
			measured: fmt.Sprintf("%.2f", us.readsPerAcq),
			met:      us.reads > 0 && us.readsPerAcq <= 3,
		})
	}
	return ts
}

// seedTargets judges combined mode's mean wait against the queue lock's
// (mode new) in the same run: at most 1.3× at 3 and 5 processes.
func seedTargets(runs []run) []target {
	mean := func(a algorithm, p int) (time.Duration, bool) {
		for _, r := range runs {
			if r.algorithm == a && r.processes == p {
				return summarize(r).mean, true
			}
		}
		return 0, false
	}
	var ts []target
	for _, p := range []int{3, 5} {
		n, ok1 := mean(algoNew, p)
		c, ok2 := mean(algoCombined, p)
		if !ok1 || !ok2 || n <= 0 {
			continue
		}
		ratio := float64(c) / float64(n)
		ts = append(ts, target{
			goal:     fmt.Sprintf("%d processes: combined mean wait ≤ 1.3× new's", p),
			measured: fmt.Sprintf("%.2f× (%s vs %s)", ratio, ms(c), ms(n)),
			met:      ratio <= 1.3,
		})
	}
	return ts
}

// roundtripTargets judges the sequential requests of an uncontended acquire
// + release: at most 3 for the queue lock, at most 6 for combined mode.
func roundtripTargets(results []roundtripResult) []target {
	limits := map[algorithm]int64{algoNew: 3, algoCombined: 6}
	var ts []target
	for _, r := range results {
		limit, ok := limits[r.algorithm]
		if !ok {
			continue
		}
		got := r.typical().sequential()
		ts = append(ts, target{
			goal:     fmt.Sprintf("%s: uncontended acquire + release ≤ %d sequential requests", r.algorithm, limit),
			measured: fmt.Sprintf("%d", got),
			met:      got <= limit,
		})
	}
	byAlgo := map[algorithm]roundtripResult{}
	for _, r := range results {
		byAlgo[r.algorithm] = r
	}
	plain, ok1 := byAlgo[algoNew]
	fenced, ok2 := byAlgo[algoNewEvidence]
	if ok1 && ok2 {
		added := fenced.typical().acquire.sequential - plain.typical().acquire.sequential
		ts = append(ts, target{
			goal:     "fencing adds 0 sequential requests to a new-mode acquisition (new-evidence against new)",
			measured: fmt.Sprintf("%+d", added),
			met:      added <= 0,
		})
	}
	return ts
}
