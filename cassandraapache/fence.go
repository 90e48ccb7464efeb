package cassandraapache

import (
	"context"
	"errors"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra/cqlstore"
)

// FenceStore is the storage of package fence on Cassandra through the v2
// driver: per key of a table of fenced values (schema's
// fenced_resource.cql), the value last committed and its fencing token,
// written only by lightweight transactions. It implements fence.Store and
// behaves as package cassandra's FenceStore, whose comments give the
// details. A FenceStore is safe for concurrent use; it does not own the
// session.
type FenceStore struct {
	serial, commit gocql.Consistency
	scope          lockstep.Scope
	core           *cqlstore.Fence
}

// FenceOption configures a FenceStore.
type FenceOption func(*FenceStore)

// WithSerialConsistency sets the serial consistency of commits and loads:
// gocql.Serial (the default) or gocql.LocalSerial, which orders writers of
// one data centre only (see package cassandra's WithSerialConsistency), and
// is therefore taken only with WithFenceLocalDC.
func WithSerialConsistency(c gocql.Consistency) FenceOption {
	return func(s *FenceStore) { s.serial = c }
}

// WithFenceLocalDC says that every writer of the store's keys lives in data
// centre dc, so NewFenceStore takes LOCAL_SERIAL, as package cassandra's
// WithFenceLocalDC does. Default: global, SERIAL only.
func WithFenceLocalDC(dc string) FenceOption {
	return func(s *FenceStore) { s.scope = lockstep.LocalTo(dc) }
}

// NewFenceStore returns a FenceStore for the tables of keyspace. A nil
// session, an unsafe keyspace name, a serial consistency other than SERIAL
// and LOCAL_SERIAL, or LOCAL_SERIAL without WithFenceLocalDC gives an error
// wrapping lockstep.ErrInvalidConfig. It does not contact the cluster.
func NewFenceStore(session *gocql.Session, keyspace string, opts ...FenceOption) (*FenceStore, error) {
	if session == nil {
		return nil, cqlstore.NilSession("*gocql.Session of github.com/apache/cassandra-gocql-driver/v2")
	}
	s := &FenceStore{serial: gocql.Serial}
	for _, o := range opts {
		o(s)
	}
	if err := cqlstore.ValidateSerialScope(s.scope, cqlstore.Level(s.serial)); err != nil {
		return nil, err
	}
	core, err := cqlstore.NewFence(func(serial, commit cqlstore.Level) cqlstore.FenceDriver {
		s.commit = gocql.Consistency(commit)
		return fenceDriver{session: session, serial: s.serial, commit: s.commit}
	}, storeErrors, keyspace, cqlstore.Level(s.serial))
	if err != nil {
		return nil, err
	}
	s.core = core
	return s, nil
}

// CommitIfNewer writes value with token to key of table if token is at least
// the stored token, or key holds nothing, and reports whether it did and the
// highest token key holds afterwards, in at most three lightweight
// transactions. Bad input and a done ctx are refused before anything is
// sent; an unknown outcome wraps lockstep.ErrUnknownOutcome. The
// transactions are not marked idempotent, so the driver never retries them.
func (s *FenceStore) CommitIfNewer(ctx context.Context, table, key string, token int64, value []byte) (bool, int64, error) {
	return s.core.CommitIfNewer(ctx, table, key, token, value)
}

// Load returns the token and value key of table holds (0 and nil if never
// written), read at the serial consistency. Errors are plain failures.
func (s *FenceStore) Load(ctx context.Context, table, key string) (int64, []byte, error) {
	return s.core.Load(ctx, table, key)
}

// fenceDriver sends the fence statements of package cqlstore through the v2
// driver.
type fenceDriver struct {
	session        *gocql.Session
	serial, commit gocql.Consistency
}

func (d fenceDriver) CAS(ctx context.Context, stmt string, args []any, row map[string]any) (bool, error) {
	return d.session.Query(stmt, args...).Consistency(d.commit).SerialConsistency(d.serial).MapScanCASContext(ctx, row)
}

func (d fenceDriver) Load(ctx context.Context, stmt, key string, token *int64, value *[]byte) (bool, error) {
	err := d.session.Query(stmt, key).Consistency(d.serial).Idempotent(true).ScanContext(ctx, token, value)
	if errors.Is(err, gocql.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
