package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

// teardown undoes everything the run started, on every exit path, and
// says what, if anything, it could not remove. It runs once: the run calls
// it before the summary, so that the summary line is the last one printed,
// and a deferred call covers the other exit paths.
func (r *runner) teardown() { r.tornDown.Do(r.teardownOnce) }

func (r *runner) teardownOnce() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if n := r.workers.killAll(); n > 0 {
		r.logf("teardown: killed %d worker(s) still running", n)
	}
	r.stopLockds()
	var left []string
	if r.cluster == nil {
		return
	}
	if err := nemesis.Cleanup(ctx, r.cluster); err != nil {
		left = append(left, "nemesis cleanup: "+err.Error())
	}
	if err := r.cluster.Down(ctx); err != nil {
		left = append(left, err.Error())
	}
	if err := r.cluster.RemoveClientGroups(); err != nil {
		left = append(left, err.Error())
	} else if gs := r.cluster.ClientGroupsLeft(); len(gs) > 0 {
		left = append(left, "client cgroups "+strings.Join(gs, ", "))
	}
	if ts, err := nemesis.Tables(ctx, r.cluster); err != nil || len(ts) > 0 {
		left = append(left, fmt.Sprintf("nftables tables %v %v", ts, err))
	}
	for _, n := range r.cluster.Nodes {
		if r.cluster.Running(n.N) {
			left = append(left, fmt.Sprintf("node %d still runs", n.N))
		}
		for _, g := range []string{n.CGroup2, n.CPUGroup} {
			if g == "" {
				continue
			}
			if _, err := os.Stat(g); err == nil {
				left = append(left, "cgroup "+g)
			}
			if _, err := os.Stat(filepath.Dir(g)); err == nil {
				left = append(left, "cgroup "+filepath.Dir(g))
			}
		}
	}
	if len(left) > 0 {
		r.logf("teardown: LEFT BEHIND: %s", strings.Join(left, "; "))
		return
	}
	r.logf("teardown: no worker, node, cgroup or nftables table left")
}

// summary prints the per-segment verdicts and the final line; it reports
// whether the run passed (fleets clean, controls caught). A run cut short
// (failed, interrupted) ends in an INCOMPLETE line instead, so nothing that
// looks for the summary line mistakes it for a pass.
func (r *runner) summary(res []result, cut error) bool {
	ops, unknown, viol := 0, 0, 0
	pass := true
	fmt.Fprintln(r.out, "summary:")
	for _, s := range res {
		mark := "ok  "
		if !s.ok {
			mark = "FAIL"
			pass = false
		}
		fmt.Fprintf(r.out, "  %s %-18s %3d nemesis events, %6d operations, %4d unknown: %s\n",
			mark, s.seg.name, s.events, s.ops, s.unknown, s.verdict)
		ops += s.ops
		unknown += s.unknown
		if !s.seg.control {
			viol += len(s.findings)
		}
	}
	if len(res) == 0 {
		pass = false
	}
	fmt.Fprintf(r.out, "robustness: wall time %v, seed %d, %d unknown outcomes; controls are not counted as violations\n",
		time.Since(r.start).Round(time.Second), r.o.seed, unknown)
	r.lockdSummary()
	r.moveSummary(res)
	handoffSummary(r.out, res)
	if cut != nil {
		fmt.Fprintf(r.out, "robustness: INCOMPLETE after %d of its segments (%v): %d operations, %d nemesis events, %d violations so far\n",
			len(res), cut, ops, r.events, viol)
		return false
	}
	fmt.Fprintf(r.out, "robustness: %d operations, %d nemesis events, %d violations\n", ops, r.events, viol)
	return pass
}
