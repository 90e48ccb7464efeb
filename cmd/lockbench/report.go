package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// summary is the statistics of one seed run.
type summary struct {
	waitStats
	// jain is Jain's fairness index of the processes' acquisition counts
	// while all of them contended (contendedShares).
	jain float64
	// rtAcquire and rtRelease are the sequential store requests per Lock
	// and per Unlock, averaged over the run.
	rtAcquire, rtRelease float64
	// background is the requests made outside Lock and Unlock (renewals).
	background int64
}

func summarize(r run) summary {
	s := summary{waitStats: summarizeWaits(r.waits()), jain: jain(contendedShares(r.moments()))}
	req := r.requests()
	if s.n > 0 {
		s.rtAcquire = float64(req.Acquire) / float64(s.n)
		s.rtRelease = float64(req.Release) / float64(s.n)
	}
	s.background = req.Background
	return s
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// printSeedTables prints the seed's tables 1 and 2 (mean and max wait per
// process count and algorithm), then the details of every run. clock names
// the time the runs' durations are measured in ("virtual" or "wall").
func printSeedTables(w io.Writer, cfg seedConfig, runs []run, clock string) {
	get := func(a algorithm, p int) (summary, bool) {
		for _, r := range runs {
			if r.algorithm == a && r.processes == p {
				return summarize(r), true
			}
		}
		return summary{}, false
	}
	for _, table := range []struct {
		title string
		pick  func(summary) time.Duration
	}{
		{"Table 1: mean acquisition wait", func(s summary) time.Duration { return s.mean }},
		{"Table 2: max acquisition wait", func(s summary) time.Duration { return s.max }},
	} {
		fmt.Fprintf(w, "%s (%d acquisitions per process)\n", table.title, cfg.k)
		tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "processes\t")
		for _, a := range cfg.algorithms {
			fmt.Fprintf(tw, "%s\t", a)
		}
		fmt.Fprintln(tw)
		for _, p := range cfg.processes {
			fmt.Fprintf(tw, "%d\t", p)
			for _, a := range cfg.algorithms {
				if s, ok := get(a, p); ok {
					fmt.Fprintf(tw, "%s\t", ms(table.pick(s)))
				}
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "Details")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "algorithm\tprocesses\tacquisitions\tmean\tp50\tp99\tmax\tmax/mean\tJain\tRT/acquire\tRT/release\trenewals\tslowest request\t%s time\t\n", clock)
	for _, r := range runs {
		s := summarize(r)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%.1f\t%.3f\t%.1f\t%.1f\t%d\t%s\t%.1f s\t\n", r.algorithm, r.processes, s.n,
			ms(s.mean), ms(s.p50), ms(s.p99), ms(s.max), s.ratio(), s.jain, s.rtAcquire, s.rtRelease, s.background, slowestText(r), r.elapsed.Seconds())
	}
	tw.Flush()
	fmt.Fprintln(w, "\nJain: fairness of the processes' shares of the lock while all contended (1 = equal, 1/n = one took all);")
	fmt.Fprintln(w, "RT/acquire, RT/release: store requests per Lock and per Unlock, counted on the caller's path (a combined lock sends some side by side: -scenario roundtrips counts its sequential round trips);")
	fmt.Fprintln(w, "renewals: store requests outside Lock and Unlock (lease renewals of holders and waiters), whole run;")
	fmt.Fprintln(w, "slowest request: the longest single store request of any process, * if it overlapped the longest wait (– not timed).")
}

// slowestText prints the longest store request of r, marked with * when it
// overlapped r's longest acquisition wait, or – when r's backend does not
// time its requests.
func slowestText(r run) string {
	var slow procResult
	var longest, longestEnd time.Duration
	for _, p := range r.procs {
		if p.Slowest > slow.Slowest {
			slow = p
		}
		for i, w := range p.Waits {
			if w > longest {
				longest, longestEnd = w, p.At[i]
			}
		}
	}
	if slow.Slowest == 0 {
		return "–"
	}
	text := ms(slow.Slowest)
	if slow.SlowestAt < longestEnd && slow.SlowestAt+slow.Slowest > longestEnd-longest {
		text += "*"
	}
	return text
}
