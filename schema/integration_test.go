//go:build integration

package schema_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep/locktest/clusterlock"
	"github.com/lockstep-go/lockstep/schema"
)

// The keyspace of this package's integration tests; package cassandra's use
// another, so the two test binaries never race on the same schema.
const itKeyspace = "lockstep_it_schema"

// clusterLock takes the shared cluster-tests lock once per test binary;
// clusterUnlock keeps the lock's file reachable (a collected *os.File is
// closed, which would release the lock) until the binary exits.
var (
	clusterLock   sync.Once
	clusterUnlock func()
)

// itSession connects to CASSANDRA_HOSTS; with the integration tag and no
// hosts the test fails rather than skips.
func itSession(t *testing.T) (*gocql.Session, int) {
	t.Helper()
	raw := os.Getenv("CASSANDRA_HOSTS")
	var hosts []string
	for _, h := range strings.Split(raw, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		t.Fatal("CASSANDRA_HOSTS is empty: the integration tag needs a running Cassandra " +
			"(scripts/cassandra up, then CASSANDRA_HOSTS=127.0.0.1)")
	}
	clusterLock.Do(func() { clusterUnlock = clusterlock.Take(t, false) }) // held until the binary exits
	cluster := gocql.NewCluster(hosts...)
	cluster.Timeout = 20 * time.Second
	cluster.ConnectTimeout = 20 * time.Second
	session, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("connecting to %s: %v", raw, err)
	}
	t.Cleanup(session.Close)
	return session, len(hosts)
}

type tableInfo struct {
	comment  string
	gcGrace  int
	defTTL   int
	compactn map[string]string
}

func tables(t *testing.T, ctx context.Context, session *gocql.Session, ks string) map[string]tableInfo {
	t.Helper()
	iter := session.Query(`SELECT table_name, comment, gc_grace_seconds, default_time_to_live, compaction
		FROM system_schema.tables WHERE keyspace_name = ?`, ks).WithContext(ctx).Iter()
	out := map[string]tableInfo{}
	var (
		name string
		info tableInfo
	)
	for iter.Scan(&name, &info.comment, &info.gcGrace, &info.defTTL, &info.compactn) {
		out[name] = info
		info = tableInfo{}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestApply_CreatesEveryTableAndIsIdempotent(t *testing.T) {
	session, hosts := itSession(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	if err := session.Query("DROP KEYSPACE IF EXISTS " + itKeyspace).WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := session.AwaitSchemaAgreement(ctx); err != nil {
		t.Fatal(err)
	}
	// NetworkTopologyStrategy in the coordinator's data centre, so the test
	// also checks that the rendered replication map is accepted.
	var dc string
	if err := session.Query("SELECT data_center FROM system.local").WithContext(ctx).Scan(&dc); err != nil {
		t.Fatal(err)
	}
	opt := schema.WithCreateKeyspace(map[string]string{
		"class": "NetworkTopologyStrategy", dc: strconv.Itoa(min(hosts, 3)),
	})
	for i := range 2 {
		if err := schema.Apply(ctx, session, itKeyspace, opt); err != nil {
			t.Fatalf("Apply #%d: %v", i+1, err)
		}
	}
	got := tables(t, ctx, session, itKeyspace)
	d := schema.DefaultTables()
	want := []string{d.LegacyMain, d.LegacyShadow, d.QueueLock, d.GlobalTime, d.FleetCensus, d.FleetPhase, d.FencedResource, d.LockWaits}
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tables %q, want %q", names, want)
	}
	for name, info := range got {
		if !strings.Contains(info.comment, "modes:") {
			t.Errorf("%s: comment %q names no modes", name, info.comment)
		}
		if info.defTTL != 0 || info.gcGrace < 10800 {
			t.Errorf("%s: default_time_to_live %d, gc_grace_seconds %d", name, info.defTTL, info.gcGrace)
		}
		if !strings.HasSuffix(info.compactn["class"], "LeveledCompactionStrategy") {
			t.Errorf("%s: compaction %v", name, info.compactn)
		}
	}
}

func TestApply_TableOverridesCreateThoseNames(t *testing.T) {
	session, _ := itSession(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	const ks = itKeyspace + "_named"
	opts := []schema.Option{
		schema.WithCreateKeyspace(map[string]string{"class": "SimpleStrategy", "replication_factor": "1"}),
		schema.WithTables(schema.Tables{QueueLock: "my_queue"}),
	}
	if err := schema.Apply(ctx, session, ks, opts...); err != nil {
		t.Fatal(err)
	}
	if _, ok := tables(t, ctx, session, ks)["my_queue"]; !ok {
		t.Fatal("my_queue not created")
	}
}
