//go:build integration

package main

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRealCohort_LocalHandoffOnANode runs the cohort scenario briefly on the
// Cassandra cluster in LOCKBENCH_CASSANDRA_HOSTS (real_integration_test.go
// says how to start one): every algorithm's processes all get the lock, no
// acquisition returns before the previous holder began to release (the
// processes' Lockers share this machine's clock), and with local handoff the
// handoffs within a process cost fewer store requests than without.
func TestRealCohort_LocalHandoffOnANode(t *testing.T) {
	hosts := os.Getenv("LOCKBENCH_CASSANDRA_HOSTS")
	if strings.TrimSpace(hosts) == "" {
		t.Fatal("LOCKBENCH_CASSANDRA_HOSTS is empty: the integration tag needs a running Cassandra")
	}
	o := realOptions{hosts: hosts, keyspace: "lockbench_test", replication: 1}
	cfg := cohortConfig{processes: 2, goroutines: 3, bound: 4, retain: 20 * time.Millisecond, duration: 2 * time.Second,
		hold: time.Millisecond, poll: 10 * time.Millisecond}
	runs, where, err := runRealCohort(o, cfg, []algorithm{algoNew, algoNewLocal, algoNewRetain})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(where, "Cassandra ") {
		t.Errorf("backend description %q", where)
	}
	figs := map[algorithm]cohortFigures{}
	for _, r := range runs {
		f := r.figures(cfg.duration)
		figs[r.algorithm] = f
		gs := r.grants()
		got := make([]int, cfg.processes)
		for _, g := range gs {
			got[g.proc]++
		}
		if slices.Contains(got, 0) {
			t.Errorf("%s: acquisitions per process %v: a process never got the lock", r.algorithm, got)
		}
		for i := 1; i < len(gs); i++ {
			if gs[i].at < gs[i-1].released {
				t.Errorf("%s: acquisition %d at %v returned before the previous holder's release at %v", r.algorithm, i, gs[i].at, gs[i-1].released)
			}
		}
	}
	if figs[algoNewLocal].requests >= figs[algoNew].requests {
		t.Errorf("requests per acquisition: new-local %.2f, new %.2f", figs[algoNewLocal].requests, figs[algoNew].requests)
	}
}
