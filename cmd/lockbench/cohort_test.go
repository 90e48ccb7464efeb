package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCohort_LocalHandoffHandsOverInMemory runs the cohort scenario
// briefly: with local handoff, handoffs within a process cost no store
// request (without fencing), so new-local makes more acquisitions than new
// in the same virtual time, with fewer requests each, and both processes
// keep getting the lock.
func TestCohort_LocalHandoffHandsOverInMemory(t *testing.T) {
	cfg := cohortConfig{processes: 2, goroutines: 3, bound: 4, duration: 3 * time.Second, hold: 10 * time.Millisecond,
		poll: 10 * time.Millisecond, minLatency: 500 * time.Microsecond, maxLatency: 2 * time.Millisecond, seed: 1}
	plain, err := runSimCohort(cfg, algoNew)
	require.NoError(t, err)
	local, err := runSimCohort(cfg, algoNewLocal)
	require.NoError(t, err)
	p, l := plain.figures(cfg.duration), local.figures(cfg.duration)
	require.Greater(t, l.acquisitions, p.acquisitions)
	require.Less(t, l.requests, p.requests)
	require.Zero(t, l.handoffP50, "most handoffs are local and take no request")
	require.Greater(t, l.jain, 0.9, "both processes get the lock")
}

func TestCohort_RefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-scenario", "cohort", "-goroutines", "0"},
		{"-scenario", "cohort", "-local-handoff", "0"},
		{"-scenario", "cohort", "-processes", "1,2"},
		{"-scenario", "cohort", "-algorithms", "legacy"},
		{"-scenario", "cohort", "-backend", "cassandra", "-hosts", "127.0.0.1"},
	} {
		require.Error(t, run1(args), "%v", args)
	}
}
