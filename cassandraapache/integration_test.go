//go:build integration

package cassandraapache_test

import (
	"bufio"
	"bytes"
	"context"
	"maps"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/cassandraapache"
	"github.com/lockstep-go/lockstep/fence"
	"github.com/lockstep-go/lockstep/fence/fencetest"
	"github.com/lockstep-go/lockstep/storetest"
)

// Integration tests run against the cluster in CASSANDRA_HOSTS
// (comma-separated addresses), for example after scripts/cassandra up:
//
//	cd cassandraapache && CASSANDRA_HOSTS=127.0.0.1 go test -tags integration -race ./...
//
// With the integration tag and no CASSANDRA_HOSTS they fail rather than skip.
// They use a keyspace of their own, so they can run beside package
// cassandra's on one cluster.

const itKeyspace = "lockstep_it_v2"

var shared struct {
	once    sync.Once
	session *gocql.Session
	hosts   []string
	dcs     map[string][]string // the nodes of each data centre (readDCs)
	err     error
}

func hosts(t testing.TB) []string {
	t.Helper()
	var hosts []string
	for _, h := range strings.Split(os.Getenv("CASSANDRA_HOSTS"), ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		t.Fatal("CASSANDRA_HOSTS is empty: the integration tag needs a running Cassandra " +
			"(scripts/cassandra up, then CASSANDRA_HOSTS=127.0.0.1)")
	}
	return hosts
}

// newSession connects a v2 session to CASSANDRA_HOSTS; its pages are small
// so every read of more than a few cells pages.
func newSession(t testing.TB, timeout time.Duration) (*gocql.Session, error) {
	cluster := gocql.NewCluster(hosts(t)...)
	cluster.Timeout = timeout
	cluster.ConnectTimeout = 20 * time.Second
	cluster.PageSize = 3
	return cluster.CreateSession()
}

// itSession returns a session shared by the tests of this binary, with the
// lockstep_it_v2 keyspace and its tables created: at most 3 replicas, and
// on a cluster of several data centres NetworkTopologyStrategy with a
// factor per data centre (at most 3, at most its nodes), as package
// cassandra/clustertest renders it for the gocql suites.
func itSession(t testing.TB) (*gocql.Session, int) {
	t.Helper()
	h := hosts(t)
	shared.once.Do(func() {
		shared.session, shared.err = newSession(t, 20*time.Second)
		if shared.err != nil {
			return
		}
		shared.hosts = h
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if shared.dcs, shared.err = readDCs(ctx, shared.session); shared.err != nil {
			return
		}
		shared.err = applySchema(ctx, shared.session, itKeyspace, replicationArgs(shared.dcs))
	})
	require.NoError(t, shared.err, "connecting to %v", h)
	return shared.session, len(shared.hosts)
}

// readDCs returns the nodes of each data centre (system.local and
// system.peers, read a few times: each read may go to another coordinator,
// and system.peers lists every node but the one that answers).
func readDCs(ctx context.Context, session *gocql.Session) (map[string][]string, error) {
	dcOf := map[string]string{}
	var dc string
	var addr net.IP
	for range 4 {
		if err := session.Query("SELECT data_center, rpc_address FROM system.local").ScanContext(ctx, &dc, &addr); err != nil {
			return nil, err
		}
		dcOf[addr.String()] = dc
		iter := session.Query("SELECT data_center, rpc_address FROM system.peers").IterContext(ctx)
		for iter.Scan(&dc, &addr) {
			dcOf[addr.String()] = dc
		}
		if err := iter.Close(); err != nil {
			return nil, err
		}
	}
	dcs := map[string][]string{}
	for a, dc := range dcOf {
		dcs[dc] = append(dcs[dc], a)
	}
	return dcs, nil
}

// replicationArgs are cqlprint's flags for the keyspace: -rf with one data
// centre, -dcs with several.
func replicationArgs(dcs map[string][]string) []string {
	if len(dcs) == 1 {
		for _, h := range dcs {
			return []string{"-rf", strconv.Itoa(min(len(h), 3))}
		}
	}
	var f []string
	for _, dc := range slices.Sorted(maps.Keys(dcs)) {
		f = append(f, dc+"="+strconv.Itoa(min(len(dcs[dc]), 3)))
	}
	return []string{"-dcs", strings.Join(f, ",")}
}

// sortedDCs are the cluster's data centres by name (after itSession).
func sortedDCs() []string { return slices.Sorted(maps.Keys(shared.dcs)) }

// firstDC is the cluster's first data centre by name ("datacenter1" on one).
func firstDC() string { return sortedDCs()[0] }

// applySchema creates keyspace (replication as cqlprint's flags say) and
// lockstep's tables with the statements package schema renders, printed by
// schema/internal/cqlprint in the lockstep module: this module's binaries
// must not link package schema, which imports the other driver.
func applySchema(ctx context.Context, session *gocql.Session, keyspace string, replication []string) error {
	cmd := exec.CommandContext(ctx, "go", append([]string{"run", "./schema/internal/cqlprint", "-keyspace", keyspace}, replication...)...)
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return &schemaError{err: err, stderr: stderr.String()}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if err := session.Query(sc.Text()).Idempotent(true).ExecContext(ctx); err != nil {
			return err
		}
		if err := session.AwaitSchemaAgreement(ctx); err != nil {
			return err
		}
	}
	return sc.Err()
}

type schemaError struct {
	err    error
	stderr string
}

func (e *schemaError) Error() string { return "cqlprint: " + e.err.Error() + ": " + e.stderr }
func (e *schemaError) Unwrap() error { return e.err }

func newStore(t testing.TB, opts ...cassandraapache.Option) *cassandraapache.Store {
	t.Helper()
	session, _ := itSession(t)
	s, err := cassandraapache.New(session, itKeyspace, opts...)
	require.NoError(t, err)
	return s
}

// TestConformance runs the store conformance suite, the same test function
// package cassandra runs on gocql, on real Cassandra through the v2 driver.
func TestConformance(t *testing.T) {
	store := newStore(t)
	storetest.Run(t, func(t *testing.T) storetest.Harness {
		return storetest.Harness{
			Store:   store,
			Table:   "queue_lock",
			Now:     func() int64 { return time.Now().UnixMicro() },
			Advance: func(_ testing.TB, d time.Duration) { time.Sleep(d) },
		}
	})
}

// TestFenceConformance runs the fence store suite on real lightweight
// transactions through the v2 driver, at SERIAL and LOCAL_SERIAL.
func TestFenceConformance(t *testing.T) {
	session, _ := itSession(t)
	for _, serial := range []gocql.Consistency{gocql.Serial, gocql.LocalSerial} {
		t.Run(serial.String(), func(t *testing.T) {
			opts := []cassandraapache.FenceOption{cassandraapache.WithSerialConsistency(serial)}
			session := session
			if serial == gocql.LocalSerial {
				// The cluster's first data centre ("datacenter1" on one),
				// through a session that sends every request there:
				// LOCAL_SERIAL orders only writers coordinated in one data
				// centre.
				dc := firstDC()
				opts = append(opts, cassandraapache.WithFenceLocalDC(dc))
				cluster := gocql.NewCluster(shared.dcs[dc]...)
				cluster.Timeout = 20 * time.Second
				cluster.ConnectTimeout = 20 * time.Second
				cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(dc))
				cluster.HostFilter = gocql.DataCenterHostFilter(dc)
				var err error
				session, err = cluster.CreateSession()
				require.NoError(t, err)
				t.Cleanup(session.Close)
			}
			store, err := cassandraapache.NewFenceStore(session, itKeyspace, opts...)
			require.NoError(t, err)
			fencetest.Run(t, func(t *testing.T) fencetest.Harness {
				return fencetest.Harness{Store: store, Table: fence.DefaultTable}
			})
		})
	}
}
