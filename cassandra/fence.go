package cassandra

import (
	"context"
	"errors"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra/cqlstore"
)

// FenceStore is the storage of package fence on Cassandra: per key of a
// table of fenced values (schema's fenced_resource.cql: row_key,
// fence_token, value), the value last committed and its fencing token,
// written only by lightweight transactions so the token comparison and the
// write are one atomic step (Paxos on the key's partition). It implements
// fence.Store. A FenceStore is safe for concurrent use; it does not own the
// session.
type FenceStore struct {
	serial gocql.SerialConsistency
	commit gocql.Consistency // the consistency of the Paxos commit phase
	scope  lockstep.Scope
	core   *cqlstore.Fence
}

// FenceOption configures a FenceStore.
type FenceOption func(*FenceStore)

// WithSerialConsistency sets the serial consistency of commits and loads:
// gocql.Serial (the default) or gocql.LocalSerial. SERIAL runs Paxos among a
// quorum of all replicas, so commits from every data centre are ordered.
// LOCAL_SERIAL runs it in the coordinator's data centre only (and commits at
// LOCAL_QUORUM): cheaper, but two writers in different data centres are not
// ordered against each other, so a stale token can win there.
// NewFenceStore therefore takes LOCAL_SERIAL only with WithFenceLocalDC,
// for resources every writer of which lives in that one data centre (the
// resources of DC-local locks).
func WithSerialConsistency(c gocql.SerialConsistency) FenceOption {
	return func(s *FenceStore) { s.serial = c }
}

// WithFenceLocalDC says that every writer of the store's keys lives in data
// centre dc, so NewFenceStore takes LOCAL_SERIAL (WithSerialConsistency).
// Default: global, SERIAL only. The session must route to dc, as
// WithLocalDC's comment says.
func WithFenceLocalDC(dc string) FenceOption {
	return func(s *FenceStore) { s.scope = lockstep.LocalTo(dc) }
}

// NewFenceStore returns a FenceStore for the tables of keyspace. A nil
// session, an unsafe keyspace name, a serial consistency other than SERIAL
// and LOCAL_SERIAL, or LOCAL_SERIAL without WithFenceLocalDC gives an error
// wrapping lockstep.ErrInvalidConfig. It
// does not contact the cluster.
func NewFenceStore(session *gocql.Session, keyspace string, opts ...FenceOption) (*FenceStore, error) {
	if session == nil {
		return nil, cqlstore.NilSession("*gocql.Session")
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
// highest token key holds afterwards. It takes at most three lightweight
// transactions and usually one:
//
//	UPDATE t SET fence_token = ?, value = ? WHERE row_key = ? IF fence_token <= ?  -- the row exists
//	INSERT INTO t (row_key, fence_token, value) VALUES (?, ?, ?) IF NOT EXISTS  -- it did not
//	UPDATE ... IF fence_token <= ?  -- another writer inserted first, with a token ≤ ours
//
// Rows are never deleted, so once the INSERT finds the row the last UPDATE
// either applies or reports a higher token: the loop is bounded. Refusals
// read the current token from the transaction's own result, so it is the
// token that won, not one read later.
//
// An invalid table name, an empty or non-UTF-8 key, a token ≤ 0 or a ctx
// already done is refused before anything is sent. A transaction whose
// outcome is unknown (a CAS write timeout, CAS unknown, no response) returns
// an error wrapping lockstep.ErrUnknownOutcome; the queries are not marked
// idempotent, so the driver never retries them behind the caller's back.
func (s *FenceStore) CommitIfNewer(ctx context.Context, table, key string, token int64, value []byte) (bool, int64, error) {
	return s.core.CommitIfNewer(ctx, table, key, token, value)
}

// Load returns the token and value key of table holds (0 and nil if never
// written), read at the store's serial consistency, so it sees every commit
// that completed before it started and completes any left half-way. An
// invalid table name or an empty key is refused before anything is sent.
// Errors are plain failures.
func (s *FenceStore) Load(ctx context.Context, table, key string) (int64, []byte, error) {
	return s.core.Load(ctx, table, key)
}

// fenceDriver sends the fence statements of package cqlstore through gocql.
type fenceDriver struct {
	session *gocql.Session
	serial  gocql.SerialConsistency
	commit  gocql.Consistency
}

func (d fenceDriver) CAS(ctx context.Context, stmt string, args []any, row map[string]any) (bool, error) {
	return d.session.Query(stmt, args...).WithContext(ctx).
		Consistency(d.commit).SerialConsistency(d.serial).MapScanCAS(row)
}

func (d fenceDriver) Load(ctx context.Context, stmt, key string, token *int64, value *[]byte) (bool, error) {
	err := d.session.Query(stmt, key).WithContext(ctx).
		Consistency(gocql.Consistency(d.serial)).Idempotent(true).Scan(token, value)
	if errors.Is(err, gocql.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
