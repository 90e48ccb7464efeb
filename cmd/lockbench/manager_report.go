package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/lockstep-go/lockstep"
)

// mgrLWTNote is printed under tables with an LWT row.
const mgrLWTNote = "lwt: one LWT lock (INSERT … IF NOT EXISTS) per requested id, ascending, released last first; no intention\nlocks on ancestors and no shared mode, so a Shared request is exclusive there."

// printManager prints the tables of the cells it has.
func printManager(w io.Writer, cells []mgrCell) {
	var depths, clients []int
	var algos []algorithm
	lwt := false
	for _, c := range cells {
		depths, clients = appendNew(depths, c.depth), appendNew(clients, c.clients)
		if !containsAlgo(algos, c.algorithm) {
			algos = append(algos, c.algorithm)
		}
		lwt = lwt || isLWT(c.algorithm)
	}
	find := func(perf int, a algorithm, n, d int) (mgrCell, bool) {
		for _, c := range cells {
			if c.perf == perf && c.algorithm == a && c.clients == n && c.depth == d {
				return c, true
			}
		}
		return mgrCell{}, false
	}
	matrix := func(title string, perf int, val func(mgrCell) string) {
		if _, ok := findPerf(cells, perf); !ok {
			return
		}
		fmt.Fprintln(w, title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "N\talgorithm\t")
		for _, d := range depths {
			fmt.Fprintf(tw, "L=%d\t", d)
		}
		fmt.Fprintln(tw)
		for _, n := range clients {
			for _, a := range algos {
				fmt.Fprintf(tw, "%d\t%s\t", n, a)
				for _, d := range depths {
					if c, ok := find(perf, a, n, d); ok && c.blocked != "" {
						fmt.Fprintf(tw, "%s\t", c.blocked)
					} else if ok {
						fmt.Fprintf(tw, "%s\t", val(c))
					} else {
						fmt.Fprint(tw, "–\t")
					}
				}
				fmt.Fprintln(tw)
			}
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	rate := func(c mgrCell) string { return fmt.Sprintf("%.0f", c.rate) }
	matrix("Perf 1: disjoint groups — V_avg, locks/s per client (M / group acquisition time)", 1, rate)
	matrix("Perf 1: mean group acquisition time", 1, func(c mgrCell) string { return ms(c.acquire) })
	matrix("Perf 2: one lock beside M held — mean acquisition time", 2, func(c mgrCell) string { return ms(c.acquire) })
	matrix("Perf 2: mean release time", 2, func(c mgrCell) string { return ms(c.release) })
	matrix("Perf 2: heap while the M locks are held (the N+1 Lockers' and, on sim, the model store's)", 2,
		func(c mgrCell) string { return fmt.Sprintf("%.0f KiB", float64(c.heap)/1024) })
	for _, c := range cells {
		if c.blocked != "" {
			fmt.Fprintln(w, "blocked: not run. The legacy and the combined lock take every member exclusively, so the")
			fmt.Fprintln(w, "separate client holds the ancestors every lock shares exclusively, and no client gets past them until it")
			fmt.Fprintln(w, "releases, which it does only after the clients are done.")
			fmt.Fprintln(w)
			break
		}
	}

	if _, ok := findPerf(cells, 3); ok {
		overlap(w, cells, "Perf 3: overlapping groups — V_avg, locks/s per client; P % of the M names shared by every client",
			func(c mgrCell) string { return fmt.Sprintf("%.0f", c.rate) })
		overlap(w, cells, "Perf 3: mean group acquisition time", func(c mgrCell) string { return ms(c.acquire) })
		fmt.Fprintln(w, "shared: the access of the shared names (the unique ones are X). legacy and combined take every member")
		fmt.Fprintln(w, "exclusively (the legacy wire format has only exclusive locks), so they have X rows only.")
		fmt.Fprintln(w, "V_avg is the seed's figure, the mean over rounds of M / time: a lock that lets some rounds through at once")
		fmt.Fprintln(w, "and makes others wait long (no order among waiters) scores higher on it than one that makes every round")
		fmt.Fprintln(w, "wait its turn (FIFO); the mean acquisition time is the figure to compare throughput by.")
		fmt.Fprintln(w)
	}
	if lwt {
		fmt.Fprintln(w, mgrLWTNote)
	}
}

func findPerf(cells []mgrCell, perf int) (mgrCell, bool) {
	for _, c := range cells {
		if c.perf == perf {
			return c, true
		}
	}
	return mgrCell{}, false
}

func appendNew(xs []int, x int) []int {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

func containsAlgo(as []algorithm, a algorithm) bool {
	for _, b := range as {
		if a == b {
			return true
		}
	}
	return false
}

// overlap prints one perf 3 table: a row per depth, client count,
// algorithm and access, a column per P.
func overlap(w io.Writer, cells []mgrCell, title string, val func(mgrCell) string) {
	var shares []int
	for _, c := range cells {
		if c.perf == 3 {
			shares = appendNew(shares, c.share)
		}
	}
	fmt.Fprintln(w, title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "L\tN\talgorithm\tshared\t")
	for _, s := range shares {
		fmt.Fprintf(tw, "P=%d\t", s)
	}
	fmt.Fprintln(tw)
	type row struct {
		d, n int
		a    algorithm
		acc  lockstep.Access
	}
	var rows []row
	vals := map[row]map[int]string{}
	for _, c := range cells {
		if c.perf != 3 {
			continue
		}
		r := row{c.depth, c.clients, c.algorithm, c.access}
		if vals[r] == nil {
			rows = append(rows, r)
			vals[r] = map[int]string{}
		}
		vals[r][c.share] = val(c)
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%v\t", r.d, r.n, r.a, r.acc)
		for _, s := range shares {
			if v, ok := vals[r][s]; ok {
				fmt.Fprintf(tw, "%s\t", v)
			} else {
				fmt.Fprint(tw, "–\t")
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintln(w)
}
