//go:build integration

package cassandra_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/cassandra/clustertest"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/schema"
	"github.com/lockstep-go/lockstep/storetest"
)

// Integration tests run against the cluster in CASSANDRA_HOSTS
// (comma-separated addresses), for example after scripts/cassandra up:
//
//	CASSANDRA_HOSTS=127.0.0.1 go test -tags integration -race ./cassandra/...
//
// With the integration tag and no CASSANDRA_HOSTS they fail rather than skip,
// so a CI job that forgot to start Cassandra cannot pass silently.

const itKeyspace = "lockstep_it"

var shared struct {
	once     sync.Once
	session  *gocql.Session
	hosts    int
	topology clustertest.Topology
	err      error
}

// itSession returns a session shared by the tests of this binary, with the
// lockstep_it keyspace and its tables created: at most 3 replicas, and on a
// cluster of several data centres NetworkTopologyStrategy with a factor per
// data centre (clustertest.Topology.Replication), so LOCAL_QUORUM and
// LOCAL_SERIAL have replicas in each. Pages are small so every read of more
// than a few cells pages.
func itSession(t testing.TB) (*gocql.Session, int) {
	t.Helper()
	raw := os.Getenv("CASSANDRA_HOSTS")
	if strings.TrimSpace(raw) == "" {
		t.Fatal("CASSANDRA_HOSTS is empty: the integration tag needs a running Cassandra " +
			"(scripts/cassandra up, then CASSANDRA_HOSTS=127.0.0.1)")
	}
	shared.once.Do(func() {
		var hosts []string
		for _, h := range strings.Split(raw, ",") {
			if h = strings.TrimSpace(h); h != "" {
				hosts = append(hosts, h)
			}
		}
		cluster := gocql.NewCluster(hosts...)
		cluster.Timeout = 20 * time.Second
		cluster.ConnectTimeout = 20 * time.Second
		cluster.PageSize = 3
		shared.session, shared.err = cluster.CreateSession()
		if shared.err != nil {
			return
		}
		shared.hosts = len(hosts)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if shared.topology, shared.err = clustertest.Read(ctx, shared.session); shared.err != nil {
			return
		}
		shared.err = schema.Apply(ctx, shared.session, itKeyspace, schema.WithCreateKeyspace(itReplication()))
	})
	if shared.err != nil {
		t.Fatalf("connecting to %s: %v", raw, shared.err)
	}
	return shared.session, shared.hosts
}

var dcSessions struct {
	sync.Mutex
	m map[string]*gocql.Session
}

// dcSession returns a session, shared by the tests of this binary, that
// sends every request to a node of data centre dc and never to another
// (clustertest.Topology.Cluster): what a DC-local store needs.
func dcSession(t testing.TB, dc string) *gocql.Session {
	t.Helper()
	itSession(t)
	dcSessions.Lock()
	defer dcSessions.Unlock()
	if s := dcSessions.m[dc]; s != nil {
		return s
	}
	if len(shared.topology.Hosts[dc]) == 0 {
		t.Fatalf("no node in data centre %q (the cluster has %v)", dc, shared.topology.DCs())
	}
	cluster := shared.topology.Cluster(dc)
	cluster.Timeout = 20 * time.Second
	cluster.ConnectTimeout = 20 * time.Second
	cluster.PageSize = 3
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("connecting to data centre %s: %v", dc, err)
	}
	if dcSessions.m == nil {
		dcSessions.m = map[string]*gocql.Session{}
	}
	dcSessions.m[dc] = s
	return s
}

// itReplication is the replication map of the tests' keyspaces: at most 3
// replicas per data centre (after itSession).
func itReplication() map[string]string { return shared.topology.Replication(3) }

func newStore(t testing.TB, opts ...cassandra.Option) *cassandra.Store {
	t.Helper()
	session, _ := itSession(t)
	s, err := cassandra.New(session, itKeyspace, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestConformance runs the store conformance suite on real Cassandra, on a
// table created by package schema.
func TestConformance(t *testing.T) {
	store := newStore(t)
	storetest.Run(t, func(t *testing.T) storetest.Harness {
		return storetest.Harness{
			Store:   store,
			Table:   schema.DefaultTables().QueueLock,
			Now:     func() int64 { return time.Now().UnixMicro() },
			Advance: func(_ testing.TB, d time.Duration) { time.Sleep(d) },
		}
	})
}

func TestStore_ReadPagesThroughLargePartition(t *testing.T) {
	store := newStore(t)
	ctx := t.Context()
	row := "paging/" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ts := time.Now().UnixMicro()
	var cells []lockstep.Cell
	for i := range 20 {
		cells = append(cells, lockstep.Cell{Column: "c" + strconv.Itoa(100+i), Value: []byte{byte(i)}, Timestamp: ts, TTL: time.Minute})
	}
	if err := store.Put(ctx, "queue_lock", row, cells...); err != nil {
		t.Fatal(err)
	}
	// Tombstones between live cells, as a lock partition has them.
	if err := store.Delete(ctx, "queue_lock", row, ts+1, "c101", "c102", "c103", "c104"); err != nil {
		t.Fatal(err)
	}
	got, err := store.Read(ctx, "queue_lock", row, lockstep.Slice{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 16 || got[0].Column != "c100" || got[1].Column != "c105" || got[15].Column != "c119" {
		t.Fatalf("read %d cells, first %v", len(got), got[:min(len(got), 2)])
	}
	limited, err := store.Read(ctx, "queue_lock", row, lockstep.Slice{From: "c101", Limit: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(limited) != 7 || limited[0].Column != "c105" || limited[6].Column != "c111" {
		t.Fatalf("limited read: %d cells from %q", len(limited), limited[0].Column)
	}
	for _, c := range got {
		if c.Timestamp != ts || c.TTL <= 0 || c.TTL > time.Minute {
			t.Fatalf("cell %q: timestamp %d TTL %v, want %d and (0, 1m]", c.Column, c.Timestamp, c.TTL, ts)
		}
	}
}

// TestStore_UnavailableWriteIsNotAnUnknownOutcome writes at ALL into a
// keyspace with more replicas than nodes: the coordinator refuses it before
// forwarding, so the error must be a plain failure.
func TestStore_UnavailableWriteIsNotAnUnknownOutcome(t *testing.T) {
	session, hosts := itSession(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	const ks = "lockstep_it_unavailable"
	if err := schema.Apply(ctx, session, ks, schema.WithCreateKeyspace(map[string]string{
		"class": "SimpleStrategy", "replication_factor": strconv.Itoa(hosts + 1),
	})); err != nil {
		t.Fatal(err)
	}
	store, err := cassandra.New(session, ks, cassandra.WithConsistency(gocql.All, gocql.All))
	if err != nil {
		t.Fatal(err)
	}
	err = store.Put(ctx, "queue_lock", "r", lockstep.Cell{Column: "c", Timestamp: time.Now().UnixMicro(), TTL: time.Minute})
	var unavailable *gocql.RequestErrUnavailable
	if !errors.As(err, &unavailable) || errors.Is(err, lockstep.ErrUnknownOutcome) {
		t.Fatalf("got %v, want a plain Unavailable failure", err)
	}
	_, err = store.Read(ctx, "queue_lock", "r", lockstep.Slice{})
	if !errors.As(err, &unavailable) {
		t.Fatalf("read: got %v, want Unavailable", err)
	}
}

// A lock table dropped while a Locker runs (or a role without MODIFY) is a
// refusal no retry can change: the store's error wraps lockstep.ErrRefused,
// and Lock fails at once naming the table, not at its deadline.
func TestStore_DroppedTableFailsLockAtOnce(t *testing.T) {
	session, _ := itSession(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	const ks = "lockstep_it_dropped"
	if err := schema.Apply(ctx, session, ks, schema.WithCreateKeyspace(itReplication())); err != nil {
		t.Fatal(err)
	}
	store, err := cassandra.New(session, ks)
	if err != nil {
		t.Fatal(err)
	}
	l, err := queuelock.New(store, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background())
	if err := session.Query("DROP TABLE " + ks + ".queue_lock").WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := session.AwaitSchemaAgreement(ctx); err != nil {
		t.Fatal(err)
	}
	lockCtx, cancelLock := context.WithTimeout(ctx, time.Minute)
	defer cancelLock()
	start := time.Now()
	lk, err := l.Lock(lockCtx, "invoice/42")
	if lk != nil || !errors.Is(err, lockstep.ErrRefused) || !strings.Contains(err.Error(), "queue_lock") {
		t.Fatalf("Lock on a dropped table: %v, %v; want an error wrapping ErrRefused naming queue_lock", lk, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Lock took %v to fail: it retried a refusal", d)
	}
	t.Logf("failed after %v: %v", time.Since(start).Round(time.Millisecond), err)
}
