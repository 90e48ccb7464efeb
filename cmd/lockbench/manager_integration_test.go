//go:build integration

package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// The manager scenario's cells on the cluster in LOCKBENCH_CASSANDRA_HOSTS
// (see real_integration_test.go): every algorithm, the LWT baseline
// included, runs a small cell of perf 1, 2 and 3.
func TestRealManager_EveryAlgorithmRunsEveryPerf(t *testing.T) {
	o, session, store := realBench(t)
	tag, cell := runTag(), 0
	world := func() mgrWorld {
		cell++
		return &realWorld{session: session, store: store, keyspace: o.keyspace, tag: tag, cell: cell, poll: 10 * time.Millisecond}
	}
	p := mgrParams{m: 3, k: 2, held: 5}
	for _, a := range []algorithm{algoNew, algoLegacy, algoCombined, algoLWT} {
		t.Run(string(a), func(t *testing.T) {
			c, err := runGroups(world(), a, p, 3, 2, 0, lockstep.Exclusive)
			require.NoError(t, err)
			assert.Equal(t, 6, c.rounds)
			c, err = runGroups(world(), a, p, 3, 2, 100, lockstep.Shared)
			require.NoError(t, err)
			assert.Equal(t, 6, c.rounds)
			c, err = runBeside(world(), a, p, 3, 1)
			require.NoError(t, err)
			assert.Equal(t, 6, c.rounds, fmt.Sprint(c))
		})
	}
}
