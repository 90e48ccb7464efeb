package main

import (
	"fmt"
	"io"
	"strings"
)

// handoffSummary prints the local handoffs of the fleets with local handoff
// on (the controls' left out), the line CI greps: a run whose fleet never
// handed a store hold on in memory did not exercise local handoff, and
// says so with 0. Nothing is printed when no such fleet ran.
func handoffSummary(out io.Writer, res []result) {
	n := 0
	var names []string
	for _, s := range res {
		if s.seg.control || s.seg.handoffWorkers == 0 {
			continue
		}
		n += s.handoffs
		names = append(names, s.seg.name)
	}
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(out, "robustness: local handoffs %d (fleets %s)\n", n, strings.Join(names, ", "))
}

// plainArgs are worker i's flags for the lock manager's share, local
// handoff and its planted defect: the first seg.handoffWorkers run
// goroutines with local handoff, plain Locks only, and handoffPlant; the
// others take the segment's manager share and plant.
func (seg *segment) plainArgs(i int) []string {
	var args []string
	plant := seg.plant
	if i < seg.handoffWorkers {
		args = append(args, "--goroutines", fmt.Sprint(seg.handoffGoroutines), "--local-handoff", fmt.Sprint(seg.handoff))
		plant = seg.handoffPlant
	} else if seg.manager > 0 {
		args = append(args, "--manager-share", fmt.Sprint(seg.manager))
	}
	if plant != "" {
		args = append(args, "--plant", plant)
	}
	return args
}
