package cassandra

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
)

// Store is a lockstep.Store on a gocql session. Each call is one request to
// Cassandra, bounded by its ctx (the caller sets per-request timeouts there).
// A Store is safe for concurrent use; it does not own the session, which the
// caller closes after the last call.
type Store struct {
	session     *gocql.Session
	keyspace    string
	read, write gocql.Consistency
	stmts       sync.Map // table name -> *statements
}

var _ lockstep.Store = (*Store)(nil)

// New returns a Store that reads and writes the tables of keyspace through
// session. Tables are named per call and must have the cell shape package
// schema creates. A nil session, an unsafe keyspace name (see
// lockstep.ValidateName) or an option New refuses gives an error wrapping
// lockstep.ErrInvalidConfig. New does not contact the cluster.
func New(session *gocql.Session, keyspace string, opts ...Option) (*Store, error) {
	if session == nil {
		return nil, &lockstep.ConfigError{Field: "session", Reason: "nil *gocql.Session"}
	}
	if err := lockstep.ValidateName("keyspace", keyspace); err != nil {
		return nil, err
	}
	c := defaultConfig()
	for _, o := range opts {
		o(&c)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &Store{session: session, keyspace: keyspace, read: c.read, write: c.write}, nil
}

// Put writes cells into partition row of table in one request: one UPDATE
// for a single cell, one single-partition UNLOGGED batch for several, which
// Cassandra applies atomically. Each cell carries its own write timestamp and
// TTL (zero: no TTL; otherwise whole seconds). An invalid table name or TTL
// is refused before anything is sent. If the request may have been applied,
// the error wraps lockstep.ErrUnknownOutcome.
func (s *Store) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	st, err := s.statementsFor(table)
	if err != nil {
		return err
	}
	for _, c := range cells {
		if err := validateTTL(c); err != nil {
			return err
		}
	}
	if len(cells) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cassandra: put %s: %w", table, err)
	}
	args := func(c lockstep.Cell) []any {
		value := c.Value
		if value == nil {
			// gocql sends a nil slice as null, and a null value is a
			// tombstone: send an empty blob instead.
			value = []byte{}
		}
		return []any{c.Timestamp, int(c.TTL / time.Second), value, row, c.Column}
	}
	if len(cells) == 1 {
		q := s.session.Query(st.put, args(cells[0])...)
		return writeError("put", table, s.exec(ctx, q))
	}
	b := s.session.NewBatch(gocql.UnloggedBatch)
	for _, c := range cells {
		b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: st.put, Args: args(c), Idempotent: true})
	}
	return writeError("put", table, s.execBatch(ctx, b))
}

// Delete writes tombstones with timestamp ts for columns of partition row of
// table in one request (one DELETE, or one single-partition UNLOGGED batch).
// If the request may have been applied, the error wraps
// lockstep.ErrUnknownOutcome.
func (s *Store) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	st, err := s.statementsFor(table)
	if err != nil {
		return err
	}
	if len(columns) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cassandra: delete %s: %w", table, err)
	}
	if len(columns) == 1 {
		q := s.session.Query(st.del, ts, row, columns[0])
		return writeError("delete", table, s.exec(ctx, q))
	}
	b := s.session.NewBatch(gocql.UnloggedBatch)
	for _, col := range columns {
		b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: st.del, Args: []any{ts, row, col}, Idempotent: true})
	}
	return writeError("delete", table, s.execBatch(ctx, b))
}

// Read returns the live cells of partition row of table that sl selects, in
// column order, with their write timestamps and remaining TTLs (zero for a
// cell without TTL). It pages through large results within the one call.
// Errors are plain failures; an invalid table name or a negative limit is
// refused before anything is sent.
func (s *Store) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	st, err := s.statementsFor(table)
	if err != nil {
		return nil, err
	}
	if sl.Limit < 0 {
		return nil, fmt.Errorf("cassandra: read %s: negative limit %d", table, sl.Limit)
	}
	if sl.To != "" && sl.From >= sl.To {
		return nil, nil // an empty range; Cassandra would answer the same
	}
	args := []any{row, sl.From}
	if sl.To != "" {
		args = append(args, sl.To)
	}
	if sl.Limit > 0 {
		args = append(args, sl.Limit)
	}
	q := s.session.Query(st.read[readVariant(sl)], args...).
		WithContext(ctx).Consistency(s.read).Idempotent(true)
	scanner := q.Iter().Scanner()
	var cells []lockstep.Cell
	for scanner.Next() {
		var (
			c   lockstep.Cell
			ttl int // TTL(value) is null for a cell without TTL: scans as 0
		)
		if err := scanner.Scan(&c.Column, &c.Value, &c.Timestamp, &ttl); err != nil {
			_ = scanner.Err()
			return nil, readError(table, err)
		}
		c.TTL = time.Duration(ttl) * time.Second
		cells = append(cells, c)
	}
	if err := scanner.Err(); err != nil {
		return nil, readError(table, err)
	}
	return cells, nil
}

// maxTTL is the longest TTL Cassandra accepts (20 years).
const maxTTL = 630720000 * time.Second

// validateTTL accepts zero (no TTL) or a whole number of seconds up to maxTTL.
func validateTTL(c lockstep.Cell) error {
	if c.TTL == 0 {
		return nil
	}
	field := fmt.Sprintf("TTL of cell %q", c.Column)
	if err := lockstep.ValidateTTL(field, c.TTL); err != nil {
		return err
	}
	if c.TTL > maxTTL {
		return &lockstep.ConfigError{Field: field, Reason: fmt.Sprintf("%v exceeds Cassandra's maximum TTL of %v", c.TTL, maxTTL)}
	}
	return nil
}

// exec runs a single write with the store's write consistency. Writes carry
// explicit timestamps, so repeating one is harmless: they are idempotent and
// the session's retry policy may retry them.
func (s *Store) exec(ctx context.Context, q *gocql.Query) error {
	return q.WithContext(ctx).Consistency(s.write).Idempotent(true).Exec()
}

// execBatch runs a batch of writes with the store's write consistency.
func (s *Store) execBatch(ctx context.Context, b *gocql.Batch) error {
	b.SetConsistency(s.write)
	return s.session.ExecuteBatch(b.WithContext(ctx))
}
