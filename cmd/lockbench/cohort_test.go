package main

import (
	"slices"
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
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", "cohort", "-goroutines", "0"}, "-goroutines must be at least 1"},
		{[]string{"-scenario", "cohort", "-local-handoff", "0"}, "-local-handoff must be at least 1"},
		{[]string{"-scenario", "cohort", "-processes", "1,2"}, "one process count"},
		{[]string{"-scenario", "cohort", "-algorithms", "legacy"}, `algorithm "legacy" is not available here`},
		{[]string{"-scenario", "cohort", "-hosts", "127.0.0.1"}, "-hosts needs -backend cassandra"},
	} {
		require.ErrorContains(t, run1(c.args), c.want, "%v", c.args)
	}
}

// TestCohort_RealBackendRefusesBadFlags checks the refusals of -scenario
// cohort -backend cassandra that come before any connection: none of them
// needs a Cassandra (the contact point is a documentation address, never
// reached).
func TestCohort_RealBackendRefusesBadFlags(t *testing.T) {
	real := []string{"-scenario", "cohort", "-backend", "cassandra", "-hosts", "192.0.2.1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", "cohort", "-backend", "cassandra"}, "-backend cassandra needs -hosts"},
		{[]string{"-scenario", "cohort", "-backend", "cassandra", "-hosts", " "}, "-backend cassandra needs -hosts"},
		{append(slices.Clone(real), "-min-latency", "1ms"), "-min-latency is the sim backend's"},
		{append(slices.Clone(real), "-max-latency", "5ms"), "-max-latency is the sim backend's"},
		{append(slices.Clone(real), "-seed", "2"), "-seed is the sim backend's"},
		{append(slices.Clone(real), "-goroutines", "0"), "-goroutines must be at least 1"},
		{append(slices.Clone(real), "-duration", "0s"), "-duration must be positive"},
		{append(slices.Clone(real), "-algorithms", "lwt"), `algorithm "lwt" is not available here`},
		{append(slices.Clone(real), "-keyspace", "lock-bench"), "not a safe identifier"},
		{append(slices.Clone(real), "-replication", "0"), "-replication must be at least 1"},
	} {
		require.ErrorContains(t, run1(c.args), c.want, "%v", c.args)
	}
}
