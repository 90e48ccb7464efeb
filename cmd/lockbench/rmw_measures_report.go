package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// rmwPaperConclusion is what seed 002's §4 concluded for each workload,
// printed beside the comparison.
var rmwPaperConclusion = map[rmwWorkload]string{
	rmwSingle:  "c worse: degrades to serial, more time and accesses (Figs. 4-5)",
	rmwMulti:   "c better: fewer failures, much less time (Figs. 6-7)",
	rmwReadMix: "c better: Af up, At high, A < 1 (Figs. 8-9)",
}

// writeRMWMeasures prints the paper's measures of every cell, then each
// optimistic cell against the pessimistic cells of its workload and users,
// then the optimistic wait share per user count beside the paper's 1.53%.
func writeRMWMeasures(out io.Writer, cells []rmwCell) {
	fmt.Fprintln(out, "Seed 002's measures (BENCHMARKS.md §8 defines each with the paper's section): Tm total time, F failed requests,")
	fmt.Fprintln(out, "Co interactions (eq. 6: operations + restarts), Br and Bw the share of users downloading and uploading at once")
	fmt.Fprintln(out, "(eqs. 4-5: peak, and mean while any is), wait share the users' mean wait over Tm (§4)")
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tusers\tstrategy\tTm\tF\tCo\tCo/op\tBr peak\tBr mean\tBw peak\tBw mean\twait share\t")
	for _, c := range cells {
		m := measureRMW(c)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%.2f\t%s\t%s\t%s\t%s\t%s\t\n", c.workload, c.users, c.strategy,
			ms(c.total), c.failures, m.co, m.coPerOp, pct(m.brPeak), pct(m.brMean), pct(m.bwPeak), pct(m.bwMean), pct(m.waitShare))
	}
	_ = tw.Flush()

	fmt.Fprintln(out)
	fmt.Fprintln(out, "Optimistic (c) against pessimistic (a), eqs. 9-11: At = Tm(a)/Tm(c); Af = upload requests per upload that succeeded,")
	fmt.Fprintln(out, "c over a (the paper's F(c)/F(a) is undefined: a lock refuses no upload, F(a) = 0); A = Af/At, below 1 when c did better")
	fmt.Fprintln(out)
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tusers\ta\tAt\tAf\tA\there\tthe paper (§4)\t")
	for _, c := range cells {
		if c.strategy != rmwOptimistic {
			continue
		}
		for _, a := range cells {
			if a.workload != c.workload || a.users != c.users || a.strategy == rmwOptimistic {
				continue
			}
			r := compareRMW(a, c)
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.workload, c.users, a.strategy,
				ratio(r.at), ratio(r.af), ratio(r.a), verdict(r.a), rmwPaperConclusion[c.workload])
		}
	}
	_ = tw.Flush()

	if line := optimisticWaitShares(cells); line != "" {
		fmt.Fprintln(out)
		fmt.Fprintf(out, "Optimistic wait share, mean of the workloads run: %s (the paper, §4: about 1.53%%, its three experiments together)\n", line)
	}
}

// optimisticWaitShares is the optimistic cells' wait share per user count,
// the mean over the workloads, in the order the counts first appear.
func optimisticWaitShares(cells []rmwCell) string {
	var order []int
	sums, counts := map[int]float64{}, map[int]int{}
	for _, c := range cells {
		if c.strategy != rmwOptimistic {
			continue
		}
		if counts[c.users] == 0 {
			order = append(order, c.users)
		}
		sums[c.users] += measureRMW(c).waitShare
		counts[c.users]++
	}
	parts := make([]string, 0, len(order))
	for _, n := range order {
		unit := "users"
		if n == 1 {
			unit = "user"
		}
		parts = append(parts, fmt.Sprintf("%d %s %s", n, unit, pct(sums[n]/float64(counts[n]))))
	}
	return strings.Join(parts, ", ")
}

// pct formats a share as a percentage.
func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// ratio formats a ratio, "–" where it is undefined.
func ratio(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.2f", x)
}

// verdict reads A as the paper does.
func verdict(a float64) string {
	switch {
	case math.IsNaN(a):
		return "–"
	case a < 1:
		return "c better"
	}
	return "c worse"
}
