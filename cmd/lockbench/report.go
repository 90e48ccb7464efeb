package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/lockstep-go/lockstep"
)

// summary is the statistics of one run.
type summary struct {
	n                   int
	mean, p50, p99, max time.Duration
	jain                float64 // Jain's fairness index of per-process mean waits
	requests            float64 // store requests per acquisition
}

func summarize(r run) summary {
	var all []time.Duration
	var means []float64
	for _, w := range r.waits {
		all = append(all, w...)
		var sum time.Duration
		for _, d := range w {
			sum += d
		}
		if len(w) > 0 {
			means = append(means, float64(sum)/float64(len(w)))
		}
	}
	s := summary{n: len(all)}
	if len(all) == 0 {
		return s
	}
	slices.Sort(all)
	var sum time.Duration
	for _, d := range all {
		sum += d
	}
	s.mean = sum / time.Duration(len(all))
	s.p50 = all[len(all)/2]
	s.p99 = all[min(len(all)-1, len(all)*99/100)]
	s.max = all[len(all)-1]
	s.jain = jain(means)
	s.requests = float64(r.requests) / float64(len(all))
	return s
}

// jain is Jain's fairness index (Σx)²/(n·Σx²): 1 when all equal, 1/n when
// one takes everything.
func jain(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if sq == 0 {
		return 1
	}
	return sum * sum / (float64(len(xs)) * sq)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// printSeedTables prints the seed's tables 1 and 2 (mean and max wait per
// process count and algorithm), then the details of every run.
func printSeedTables(w io.Writer, cfg seedConfig, runs []run) {
	get := func(mode lockstep.Mode, p int) (summary, bool) {
		for _, r := range runs {
			if r.mode == mode && r.processes == p {
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
		for _, m := range cfg.algorithms {
			fmt.Fprintf(tw, "%v\t", m)
		}
		fmt.Fprintln(tw)
		for _, p := range cfg.processes {
			fmt.Fprintf(tw, "%d\t", p)
			for _, m := range cfg.algorithms {
				if s, ok := get(m, p); ok {
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
	fmt.Fprintln(tw, "algorithm\tprocesses\tacquisitions\tmean\tp50\tp99\tmax\tmax/mean\tJain\trequests/acq\tvirtual time\t")
	for _, r := range runs {
		s := summarize(r)
		ratio := 0.0
		if s.mean > 0 {
			ratio = float64(s.max) / float64(s.mean)
		}
		fmt.Fprintf(tw, "%v\t%d\t%d\t%s\t%s\t%s\t%s\t%.1f\t%.3f\t%.1f\t%.1f s\t\n", r.mode, r.processes, s.n,
			ms(s.mean), ms(s.p50), ms(s.p99), ms(s.max), ratio, s.jain, s.requests, r.elapsed.Seconds())
	}
	tw.Flush()
}
