package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// simRMW runs one rmw cell on a fresh embedded model.
func simRMW(t *testing.T, wl rmwWorkload, s rmwStrategy, users int) rmwCell {
	t.Helper()
	const minLat, maxLat = 500 * time.Microsecond, 2 * time.Millisecond
	w, err := newSimWorld(minLat, maxLat, 10*time.Millisecond, 7)
	require.NoError(t, err)
	reg := newSimRegister(w.clk, minLat, maxLat, 4, 7)
	c, err := runRMW(w, reg, wl, s, rmwParams{users: users, ops: 20, resources: 4, modify: 5 * time.Millisecond, seed: 7})
	require.NoError(t, err)
	return c
}

// Every strategy keeps every upload: the counters' final sum is the number
// of uploads that succeeded, each user ran all its operations, and only
// the optimistic strategy is ever refused.
func TestRMW_NoLostUpdates(t *testing.T) {
	for _, wl := range rmwWorkloads {
		for _, s := range rmwStrategies {
			c := simRMW(t, wl, s, 4)
			require.Zero(t, c.lostUpdates, "%s %s", wl, s)
			require.Len(t, c.ops, 4*20, "%s %s", wl, s)
			require.EqualValues(t, 4*20, c.uploads+c.downloads, "%s %s", wl, s)
			if wl != rmwReadMix {
				require.Zero(t, c.downloads, "%s %s", wl, s)
			} else {
				require.Positive(t, c.downloads, "%s %s", wl, s)
			}
			if s != rmwOptimistic {
				require.Zero(t, c.failures, "%s %s", wl, s)
			}
		}
	}
	require.Positive(t, simRMW(t, rmwSingle, rmwOptimistic, 4).failures, "four users on one resource never collided")
}

// The check has teeth: the optimistic strategy without its version check
// loses updates on one contended resource, and the count says how many.
func TestRMW_BlindUploadsLoseUpdates(t *testing.T) {
	c := simRMW(t, rmwSingle, rmwBlind, 4)
	require.Positive(t, c.lostUpdates)
	require.Zero(t, c.failures)
}

// The multi workload spreads the operations over its resources.
func TestRMW_MultiUsesSeveralResources(t *testing.T) {
	require.Equal(t, 4, simRMW(t, rmwMulti, rmwPessimistic, 4).resourcesHit)
	require.Equal(t, 1, simRMW(t, rmwSingle, rmwPessimistic, 4).resourcesHit)
}

// On virtual time one seed gives one table.
func TestRMWCommand_SameSeedSameTable(t *testing.T) {
	out := func() string {
		var b bytes.Buffer
		writeRMWTable(&b, []rmwCell{simRMW(t, rmwReadMix, rmwOptimistic, 3), simRMW(t, rmwReadMix, rmwPessimisticRW, 3)})
		return b.String()
	}
	first := out()
	require.Equal(t, first, out())
	require.Contains(t, first, "read-mix")
}

// Bad settings are refused with what to use, before any run.
func TestRMWCommand_Refusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-workloads", "bogus"}, `-workloads: "bogus" is not one of`},
		{[]string{"-workloads", ""}, "-workloads is empty"},
		{[]string{"-strategies", "blind"}, `-strategies: "blind" is not one of`},
		{[]string{"-resources", "0"}, "must be positive"},
		{[]string{"-modify", "0s"}, "must be positive"},
		{[]string{"-k", "0"}, "must be positive"},
		{[]string{"-processes", "0"}, "bad process count"},
		{[]string{"-backend", "cassandra", "-hosts", "127.0.0.1", "-cas-cost", "2"}, "-cas-cost is the sim backend's"},
	} {
		err := run1(append([]string{"-scenario", "rmw"}, c.args...))
		require.Error(t, err, strings.Join(c.args, " "))
		require.Contains(t, err.Error(), c.want, strings.Join(c.args, " "))
	}
}
