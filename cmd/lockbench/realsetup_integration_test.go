//go:build integration

package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// realBench prepares the bench keyspace (lockbench_test, RF 1) on the
// cluster in LOCKBENCH_CASSANDRA_HOSTS and returns its options, a session
// on it (closed when t ends) and the lockstep store over that session.
// With the integration tag and no hosts it fails rather than skips.
func realBench(t *testing.T) (realOptions, *gocql.Session, lockstep.Store) {
	t.Helper()
	hosts := os.Getenv("LOCKBENCH_CASSANDRA_HOSTS")
	if strings.TrimSpace(hosts) == "" {
		t.Fatal("LOCKBENCH_CASSANDRA_HOSTS is empty: the integration tag needs a running Cassandra")
	}
	o := realOptions{hosts: hosts, keyspace: "lockbench_test", replication: 1}
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	defer cancel()
	_, session, store, err := openBench(ctx, o)
	require.NoError(t, err)
	t.Cleanup(session.Close)
	return o, session, store
}
