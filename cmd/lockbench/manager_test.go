package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

func TestMgrID_HasTheDepthsSegments(t *testing.T) {
	assert.Equal(t, "p.c1k2", mgrID("p", 1, "c1k2"))
	assert.Equal(t, "p/c1k2", mgrID("p", 2, "c1k2"))
	assert.Equal(t, "p/d2/d3/d4/c1k2", mgrID("p", 5, "c1k2"))
}

func simWorldT(t *testing.T, seed uint64) mgrWorld {
	w, err := newSimWorld(500*time.Microsecond, 2*time.Millisecond, 10*time.Millisecond, seed)
	require.NoError(t, err)
	return w
}

func TestManager_DisjointGroupsRunEveryRound(t *testing.T) {
	p := mgrParams{m: 4, k: 3, held: 10}
	for _, a := range lockstepAlgorithms {
		c, err := runGroups(simWorldT(t, 1), a, p, 3, 3, 0, lockstep.Exclusive)
		require.NoError(t, err, "%s", a)
		assert.Equal(t, 1, c.perf)
		assert.Equal(t, 9, c.rounds, "%s: N·K rounds", a)
		assert.Positive(t, c.rate, "%s", a)
		assert.Positive(t, c.acquire, "%s", a)
	}
}

// Shared names held Shared let every client through at once; held
// Exclusive they serialize the groups: with every name shared, the rate
// with S is well above the rate with X on the new algorithm.
func TestManager_SharedNamesShareOnTheNewAlgorithm(t *testing.T) {
	p := mgrParams{m: 5, k: 3}
	x, err := runGroups(simWorldT(t, 2), algoNew, p, 8, 2, 100, lockstep.Exclusive)
	require.NoError(t, err)
	s, err := runGroups(simWorldT(t, 2), algoNew, p, 8, 2, 100, lockstep.Shared)
	require.NoError(t, err)
	assert.Equal(t, 3, x.perf)
	assert.Greater(t, s.rate, 2*x.rate, "S %.0f locks/s against X %.0f", s.rate, x.rate)
}

func TestManager_BesideHeldGroup(t *testing.T) {
	p := mgrParams{k: 3, held: 20}
	c, err := runBeside(simWorldT(t, 3), algoNew, p, 4, 3)
	require.NoError(t, err)
	assert.Equal(t, 12, c.rounds)
	assert.Positive(t, c.acquire)
	assert.Positive(t, c.release)
	// With only exclusive locks the separate client's group holds the
	// shared ancestors: the cell is marked, not run (it would never end).
	c, err = runBeside(simWorldT(t, 3), algoLegacy, p, 4, 2)
	require.NoError(t, err)
	assert.Equal(t, blockedByAncestors, c.blocked)
	assert.Zero(t, c.rounds)
}

// -idle: more Lockers hold one lock each under the shared ancestors for
// the whole cell; the clients still run every round, and every idle lock
// is released (the cell's Lockers close without error).
func TestManager_BesideIdleHolders(t *testing.T) {
	p := mgrParams{k: 3, held: 5, idle: 6}
	c, err := runBeside(simWorldT(t, 5), algoNew, p, 2, 3)
	require.NoError(t, err)
	assert.Equal(t, 6, c.rounds)
	assert.Positive(t, c.acquire)
}

func TestManager_TablesNameEveryCell(t *testing.T) {
	cells := []mgrCell{
		{perf: 1, algorithm: algoNew, clients: 1, depth: 1, rate: 123, acquire: 8 * time.Millisecond},
		{perf: 2, algorithm: algoLegacy, clients: 1, depth: 2, blocked: blockedByAncestors},
		{perf: 3, algorithm: algoLWT, clients: 4, depth: 1, share: 50, access: lockstep.Shared, rate: 77},
	}
	var b bytes.Buffer
	printManager(&b, cells)
	out := b.String()
	for _, want := range []string{"Perf 1", "123", "8.0 ms", "Perf 2", "blocked", "Perf 3", "P=50", "77", "a Shared request is exclusive there"} {
		assert.Contains(t, out, want)
	}
	var png bytes.Buffer
	require.NoError(t, plotManagerDisjoint(&png, cells, "test"))
	require.NoError(t, plotManagerOverlap(&png, cells, "test"))
}

// Legacy and combined take the shared ancestors exclusively, so at depth 2
// the groups run one at a time: with 8 clients a group waits for several
// others. The waits must show in the timed rounds (not vanish into the
// warm-up, as they did when a client went on from its warm-up alone).
func TestManager_SerializedGroupsShowTheirWaits(t *testing.T) {
	p := mgrParams{m: 4, k: 3}
	for _, a := range []algorithm{algoLegacy, algoCombined} {
		one, err := runGroups(simWorldT(t, 4), a, p, 1, 2, 0, lockstep.Exclusive)
		require.NoError(t, err)
		eight, err := runGroups(simWorldT(t, 4), a, p, 8, 2, 0, lockstep.Exclusive)
		require.NoError(t, err)
		assert.Greater(t, eight.acquire, 3*one.acquire, "%s: mean group acquisition with 8 clients against 1", a)
	}
}
