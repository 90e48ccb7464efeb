package cassandra

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
)

// Fenced-resource statements (package fence), on the key/token/value table
// package schema creates (fenced_resource.cql: row_key, fence_token,
// value; "token" is reserved in CQL). As with the cell statements,
// only "keyspace.table" is spliced in, after validation.
const (
	fenceInsertTemplate = "INSERT INTO <table> (row_key, fence_token, value) VALUES (?, ?, ?) IF NOT EXISTS"
	fenceUpdateTemplate = "UPDATE <table> SET fence_token = ?, value = ? WHERE row_key = ? IF fence_token <= ?"
	fenceSelectTemplate = "SELECT fence_token, value FROM <table> WHERE row_key = ?"
)

type fenceStatements struct{ insert, update, read string }

// FenceStore is the storage of package fence on Cassandra: per key of a
// table of fenced values, the value last committed and its fencing token,
// written only by lightweight transactions so the token comparison and the
// write are one atomic step (Paxos on the key's partition). It implements
// fence.Store. A FenceStore is safe for concurrent use; it does not own the
// session.
type FenceStore struct {
	session  *gocql.Session
	keyspace string
	serial   gocql.SerialConsistency
	commit   gocql.Consistency // the consistency of the Paxos commit phase
	stmts    sync.Map          // table name -> *fenceStatements
}

// FenceOption configures a FenceStore.
type FenceOption func(*FenceStore)

// WithSerialConsistency sets the serial consistency of commits and loads:
// gocql.Serial (the default) or gocql.LocalSerial. SERIAL runs Paxos among a
// quorum of all replicas, so commits from every data centre are ordered.
// LOCAL_SERIAL runs it in the coordinator's data centre only (and commits at
// LOCAL_QUORUM): cheaper, but two writers in different data centres are not
// ordered against each other, so a stale token can win there. Use it only if
// every writer of a key lives in one data centre.
func WithSerialConsistency(c gocql.SerialConsistency) FenceOption {
	return func(s *FenceStore) { s.serial = c }
}

// NewFenceStore returns a FenceStore for the tables of keyspace. A nil
// session, an unsafe keyspace name or a serial consistency other than SERIAL
// and LOCAL_SERIAL gives an error wrapping lockstep.ErrInvalidConfig. It
// does not contact the cluster.
func NewFenceStore(session *gocql.Session, keyspace string, opts ...FenceOption) (*FenceStore, error) {
	if session == nil {
		return nil, &lockstep.ConfigError{Field: "session", Reason: "nil *gocql.Session"}
	}
	if err := lockstep.ValidateName("keyspace", keyspace); err != nil {
		return nil, err
	}
	s := &FenceStore{session: session, keyspace: keyspace, serial: gocql.Serial}
	for _, o := range opts {
		o(s)
	}
	switch s.serial {
	case gocql.Serial:
		s.commit = gocql.Quorum
	case gocql.LocalSerial:
		s.commit = gocql.LocalQuorum
	default:
		return nil, &lockstep.ConfigError{Field: "serial consistency", Reason: fmt.Sprintf("%v: want SERIAL or LOCAL_SERIAL", s.serial)}
	}
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
	st, err := s.statementsFor(table)
	if err != nil {
		return false, 0, err
	}
	if err := checkFenceKey(key); err != nil {
		return false, 0, err
	}
	if token <= 0 {
		return false, 0, fmt.Errorf("cassandra: fence commit %s: token %d must be positive", table, token)
	}
	if err := ctx.Err(); err != nil {
		return false, 0, fmt.Errorf("cassandra: fence commit %s: %w", table, err)
	}
	if value == nil {
		value = []byte{} // a null would be a tombstone; keep empty and nil alike
	}
	update := func() (applied, exists bool, current int64, err error) {
		q := s.session.Query(st.update, token, value, key, token)
		return s.cas(ctx, q)
	}
	applied, exists, current, err := update()
	if err != nil || applied || exists {
		return s.result(table, token, applied, current, err)
	}
	q := s.session.Query(st.insert, key, token, value)
	applied, _, current, err = s.cas(ctx, q)
	if err != nil || applied || current > token {
		return s.result(table, token, applied, current, err)
	}
	applied, _, current, err = update()
	return s.result(table, token, applied, current, err)
}

// cas runs one lightweight transaction and returns whether it applied and,
// when it did not, whether the row exists and its token.
func (s *FenceStore) cas(ctx context.Context, q *gocql.Query) (applied, exists bool, current int64, err error) {
	q = q.WithContext(ctx).Consistency(s.commit).SerialConsistency(s.serial)
	row := map[string]any{}
	applied, err = q.MapScanCAS(row)
	if err != nil {
		return false, false, 0, err
	}
	if t, ok := row["fence_token"].(int64); ok {
		return applied, true, t, nil
	}
	return applied, false, 0, nil
}

// result maps the outcome of the last transaction of a commit.
func (s *FenceStore) result(table string, token int64, applied bool, current int64, err error) (bool, int64, error) {
	switch {
	case err != nil:
		return false, 0, writeError("fence commit", table, err)
	case applied:
		return true, token, nil
	}
	return false, current, nil
}

// Load returns the token and value key of table holds (0 and nil if never
// written), read at the store's serial consistency, so it sees every commit
// that completed before it started and completes any left half-way. An
// invalid table name or an empty key is refused before anything is sent.
// Errors are plain failures.
func (s *FenceStore) Load(ctx context.Context, table, key string) (int64, []byte, error) {
	st, err := s.statementsFor(table)
	if err != nil {
		return 0, nil, err
	}
	if err := checkFenceKey(key); err != nil {
		return 0, nil, err
	}
	var (
		token int64
		value []byte
	)
	err = s.session.Query(st.read, key).WithContext(ctx).
		Consistency(gocql.Consistency(s.serial)).Idempotent(true).Scan(&token, &value)
	switch {
	case errors.Is(err, gocql.ErrNotFound):
		return 0, nil, nil
	case err != nil:
		return 0, nil, readError(table, err)
	}
	if len(value) == 0 {
		value = nil
	}
	return token, value, nil
}

func checkFenceKey(key string) error {
	if key == "" || !utf8.ValidString(key) {
		return fmt.Errorf("cassandra: fence: key %q must be non-empty UTF-8", key)
	}
	return nil
}

// statementsFor returns the cached statements of table, validating its name
// the first time it is seen.
func (s *FenceStore) statementsFor(table string) (*fenceStatements, error) {
	if st, ok := s.stmts.Load(table); ok {
		return st.(*fenceStatements), nil
	}
	if err := lockstep.ValidateName("table", table); err != nil {
		return nil, err
	}
	r := strings.NewReplacer(tablePlaceholder, s.keyspace+"."+table)
	st, _ := s.stmts.LoadOrStore(table, &fenceStatements{
		insert: r.Replace(fenceInsertTemplate),
		update: r.Replace(fenceUpdateTemplate),
		read:   r.Replace(fenceSelectTemplate),
	})
	return st.(*fenceStatements), nil
}
