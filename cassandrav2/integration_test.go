//go:build integration

package cassandrav2_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/cassandrav2"
	"github.com/lockstep-go/lockstep/fence"
	"github.com/lockstep-go/lockstep/fence/fencetest"
	"github.com/lockstep-go/lockstep/storetest"
)

// Integration tests run against the cluster in CASSANDRA_HOSTS
// (comma-separated addresses), for example after scripts/cassandra up:
//
//	cd cassandrav2 && CASSANDRA_HOSTS=127.0.0.1 go test -tags integration -race ./...
//
// With the integration tag and no CASSANDRA_HOSTS they fail rather than skip.
// They use a keyspace of their own, so they can run beside package
// cassandra's on one cluster.

const itKeyspace = "lockstep_it_v2"

var shared struct {
	once    sync.Once
	session *gocql.Session
	hosts   []string
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
// lockstep_it_v2 keyspace and its tables created (RF = number of hosts, at
// most 3).
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
		shared.err = applySchema(ctx, shared.session, itKeyspace, min(len(h), 3))
	})
	require.NoError(t, shared.err, "connecting to %v", h)
	return shared.session, len(shared.hosts)
}

// applySchema creates keyspace (SimpleStrategy, rf) and lockstep's tables
// with the statements package schema renders, printed by
// schema/internal/cqlprint in the lockstep module: this module's binaries
// must not link package schema, which imports the other driver.
func applySchema(ctx context.Context, session *gocql.Session, keyspace string, rf int) error {
	cmd := exec.CommandContext(ctx, "go", "run", "./schema/internal/cqlprint", "-keyspace", keyspace, "-rf", strconv.Itoa(rf))
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

func newStore(t testing.TB, opts ...cassandrav2.Option) *cassandrav2.Store {
	t.Helper()
	session, _ := itSession(t)
	s, err := cassandrav2.New(session, itKeyspace, opts...)
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
			opts := []cassandrav2.FenceOption{cassandrav2.WithSerialConsistency(serial)}
			if serial == gocql.LocalSerial {
				// The test cluster's one data centre, Cassandra's default name.
				opts = append(opts, cassandrav2.WithFenceLocalDC("datacenter1"))
			}
			store, err := cassandrav2.NewFenceStore(session, itKeyspace, opts...)
			require.NoError(t, err)
			fencetest.Run(t, func(t *testing.T) fencetest.Harness {
				return fencetest.Harness{Store: store, Table: fence.DefaultTable}
			})
		})
	}
}
