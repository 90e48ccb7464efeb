//go:build integration

package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The rmw scenario on the cluster in LOCKBENCH_CASSANDRA_HOSTS (see
// real_integration_test.go): each strategy on one contended resource keeps
// every upload (the row's counter is the number of uploads that
// succeeded), the optimistic one through real lightweight transactions.
func TestRealRMW_NoLostUpdates(t *testing.T) {
	hosts := os.Getenv("LOCKBENCH_CASSANDRA_HOSTS")
	if strings.TrimSpace(hosts) == "" {
		t.Fatal("LOCKBENCH_CASSANDRA_HOSTS is empty: the integration tag needs a running Cassandra")
	}
	o := realOptions{hosts: hosts, keyspace: "lockbench_test", replication: 1}
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	defer cancel()
	_, err := prepareCassandra(ctx, o)
	require.NoError(t, err)
	session, err := connect(splitList(hosts))
	require.NoError(t, err)
	defer session.Close()
	require.NoError(t, createRMWTable(ctx, session, o.keyspace))
	store, err := newCassandraStore(session, o.keyspace)
	require.NoError(t, err)
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
