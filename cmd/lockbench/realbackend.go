package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/schema"
)

// realOptions locate the real backend: a Cassandra cluster and, for the
// peers scenario, an etcd.
type realOptions struct {
	hosts       string // comma-separated Cassandra contact points
	keyspace    string // the bench's keyspace, created by the bench
	replication int    // its replication factor
	etcd        string // comma-separated etcd endpoints
	etcdPeerDir string // the etcd peer's module directory; empty: found (etcdpeer.go)
	etcdPeerExe string // the built etcd peer, set by withEtcdPeer
	// lockdDir is the lockd module's directory and lockdPeerDir the lockd
	// peer's (empty: found, lockdpeer.go); lockdPeerExe the built peer and
	// lockdURL the lockd under test, set by -scenario service.
	lockdDir, lockdPeerDir string
	lockdPeerExe, lockdURL string
	// lockdFlags are extra flags for the lockd under test (-lockd-flags).
	lockdFlags string
}

// lwtTable is the LWT baseline's table in the bench keyspace.
const lwtTable = "lwt_lock"

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// connect opens a gocql session to hosts at QUORUM (the consistency the
// lockstep Store uses by default).
func connect(hosts []string) (*gocql.Session, error) {
	cluster := gocql.NewCluster(hosts...)
	cluster.Consistency = gocql.Quorum
	cluster.SerialConsistency = gocql.Serial
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	s, err := cluster.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connecting to Cassandra at %s: %w", strings.Join(hosts, ","), err)
	}
	return s, nil
}

// prepareCassandra creates the bench keyspace with lockstep's tables
// (schema.Apply) and the LWT baseline's table, and returns the server's
// release version.
func prepareCassandra(ctx context.Context, o realOptions) (string, error) {
	if err := lockstep.ValidateName("keyspace", o.keyspace); err != nil {
		return "", err
	}
	if o.replication < 1 {
		return "", fmt.Errorf("-replication must be at least 1, got %d", o.replication)
	}
	s, err := connect(splitList(o.hosts))
	if err != nil {
		return "", err
	}
	defer s.Close()
	if err := schema.Apply(ctx, s, o.keyspace, schema.WithCreateKeyspace(map[string]string{
		"class": "SimpleStrategy", "replication_factor": strconv.Itoa(o.replication),
	})); err != nil {
		return "", fmt.Errorf("applying the schema to keyspace %s: %w", o.keyspace, err)
	}
	// The baseline a user would write: one row per lock id, its owner, a TTL
	// on every write. The keyspace name was validated above; the table name
	// is a constant.
	stmt := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (id text PRIMARY KEY, owner text)", o.keyspace, lwtTable)
	if err := s.Query(stmt).WithContext(ctx).Exec(); err != nil {
		return "", fmt.Errorf("creating the LWT baseline's table: %w", err)
	}
	if err := s.AwaitSchemaAgreement(ctx); err != nil {
		return "", fmt.Errorf("awaiting schema agreement: %w", err)
	}
	var version string
	if err := s.Query("SELECT release_version FROM system.local").WithContext(ctx).Scan(&version); err != nil {
		return "", fmt.Errorf("reading the Cassandra version: %w", err)
	}
	return version, nil
}

// newCassandraStore returns the production Store on session.
func newCassandraStore(session *gocql.Session, keyspace string) (lockstep.Store, error) {
	st, err := cassandra.New(session, keyspace)
	if err != nil {
		return nil, fmt.Errorf("cassandra store: %w", err)
	}
	return st, nil
}

// runTag returns a short tag unique to this invocation, to keep the lock ids
// and process ids of different runs apart (cells of an earlier run may
// still be live).
func runTag() string { return strconv.FormatInt(time.Now().UnixMilli()%1e9, 36) }

// openBench prepares o's keyspace (prepareCassandra) and opens a session on
// it with the lockstep store over that session, for the scenarios whose
// clients share one session in this process. It returns the server's
// version; the caller closes the session.
func openBench(ctx context.Context, o realOptions) (version string, session *gocql.Session, store lockstep.Store, err error) {
	if version, err = prepareCassandra(ctx, o); err != nil {
		return "", nil, nil, err
	}
	if session, err = connect(splitList(o.hosts)); err != nil {
		return "", nil, nil, err
	}
	if store, err = newCassandraStore(session, o.keyspace); err != nil {
		session.Close()
		return "", nil, nil, err
	}
	return version, session, store, nil
}
