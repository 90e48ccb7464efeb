//go:build integration

package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The rmw scenario on the cluster in LOCKBENCH_CASSANDRA_HOSTS (see
// real_integration_test.go): each strategy on one contended resource keeps
// every upload (the row's counter is the number of uploads that
// succeeded), the optimistic one through real lightweight transactions.
func TestRealRMW_NoLostUpdates(t *testing.T) {
	o, session, store := realBench(t)
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	defer cancel()
	require.NoError(t, createRMWTable(ctx, session, o.keyspace))
	reg := &cqlRegister{s: session, keyspace: o.keyspace}
	tag, cell := runTag(), 0
	for _, wl := range []rmwWorkload{rmwSingle, rmwReadMix} {
		for _, s := range rmwStrategies {
			cell++
			w := &realWorld{session: session, store: store, keyspace: o.keyspace, tag: tag, cell: cell, poll: 10 * time.Millisecond}
			c, err := runRMW(w, reg, wl, s, rmwParams{users: 3, ops: 8, resources: 2, modify: 2 * time.Millisecond, seed: 1})
			require.NoError(t, err, "%s %s", wl, s)
			require.Zero(t, c.lostUpdates, "%s %s", wl, s)
			require.EqualValues(t, 3*8, c.uploads+c.downloads, "%s %s", wl, s)
		}
	}
}
