//go:build integration

package cassandraapache_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandraapache"
)

// A DC-local store whose session is routed to another data centre refuses
// the answers of that data centre's coordinators: its write fails (maybe
// applied there, and refused) and its read fails, both saying how to route
// the session. Needs two data centres (scripts/cassandra up --nodes 3 --dcs 2).
func TestDC_LocalStoreRefusesACoordinatorOfAnotherDataCentre(t *testing.T) {
	itSession(t)
	dcs := sortedDCs()
	if len(dcs) < 2 {
		t.Skipf("needs a cluster of two data centres (scripts/cassandra up --nodes 3 --dcs 2); this one has %v", dcs)
	}
	local, other := dcs[0], dcs[1]
	cluster := gocql.NewCluster(shared.dcs[other]...)
	cluster.Timeout = 20 * time.Second
	cluster.ConnectTimeout = 20 * time.Second
	cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(other))
	cluster.HostFilter = gocql.DataCenterHostFilter(other)
	session, err := cluster.CreateSession()
	require.NoError(t, err)
	defer session.Close()
	store, err := cassandraapache.New(session, itKeyspace, cassandraapache.WithLocalDC(local))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	row := fmt.Sprintf("\x00%s\x00it/dc/%x", local, time.Now().UnixNano())
	want := fmt.Sprintf("in data centre %q, but the store is local to %q", other, local)
	cell := lockstep.Cell{Column: "c", Value: []byte("v"), Timestamp: time.Now().UnixMicro(), TTL: time.Minute}
	for name, cells := range map[string][]lockstep.Cell{"one cell": {cell}, "a batch": {cell, {Column: "d", Timestamp: cell.Timestamp, TTL: time.Minute}}} {
		err = store.Put(ctx, "queue_lock", row, cells...)
		if !errors.Is(err, lockstep.ErrRefused) || !errors.Is(err, lockstep.ErrUnknownOutcome) || !strings.Contains(err.Error(), want) {
			t.Errorf("put of %s through %s: got %v, want a refusal (%s) that may have applied", name, other, err, want)
		}
	}
	_, err = store.Read(ctx, "queue_lock", row, lockstep.Slice{})
	if !errors.Is(err, lockstep.ErrRefused) || errors.Is(err, lockstep.ErrUnknownOutcome) || !strings.Contains(err.Error(), want) {
		t.Errorf("read through %s: got %v, want a refusal (%s)", other, err, want)
	}
}
