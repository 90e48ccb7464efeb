package cassandra

import (
	"context"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/cqlstore"
)

// Store is a lockstep.Store on a gocql session. Each call is one request to
// Cassandra, bounded by its ctx (the caller sets per-request timeouts there).
// A Store is safe for concurrent use; it does not own the session, which the
// caller closes after the last call.
type Store struct {
	driver driver
	core   *cqlstore.Store
}

var (
	_ lockstep.Store  = (*Store)(nil)
	_ lockstep.Scoped = (*Store)(nil)
)

// New returns a Store that reads and writes the tables of keyspace through
// session. Tables are named per call and must have the cell shape package
// schema creates. A nil session, an unsafe keyspace name (see
// lockstep.ValidateName) or an option New refuses gives an error wrapping
// lockstep.ErrInvalidConfig. New does not contact the cluster.
func New(session *gocql.Session, keyspace string, opts ...Option) (*Store, error) {
	if session == nil {
		return nil, cqlstore.NilSession("*gocql.Session")
	}
	c := defaultConfig()
	for _, o := range opts {
		o(&c)
	}
	d := driver{session: session, read: c.read, write: c.write}
	core, err := cqlstore.NewStore(d, storeErrors, keyspace, c.scope, cqlstore.Level(c.read), cqlstore.Level(c.write))
	if err != nil {
		return nil, err
	}
	return &Store{driver: d, core: core}, nil
}

// Scope returns the store's scope: global, or lockstep.LocalTo the data
// centre WithLocalDC named. It implements lockstep.Scoped.
func (s *Store) Scope() lockstep.Scope { return s.core.Scope() }

// Put writes cells into partition row of table in one request: one UPDATE
// for a single cell, one single-partition UNLOGGED batch for several, which
// Cassandra applies atomically. Each cell carries its own write timestamp and
// TTL (zero: no TTL; otherwise whole seconds). An invalid table name or TTL
// is refused before anything is sent. If the request may have been applied,
// the error wraps lockstep.ErrUnknownOutcome.
func (s *Store) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	return s.core.Put(ctx, table, row, cells...)
}

// Delete writes tombstones with timestamp ts for columns of partition row of
// table in one request (one DELETE, or one single-partition UNLOGGED batch).
// If the request may have been applied, the error wraps
// lockstep.ErrUnknownOutcome.
func (s *Store) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	return s.core.Delete(ctx, table, row, ts, columns...)
}

// PutDelete writes tombstones with timestamp ts for columns and the cells
// into partition row of table in one single-partition UNLOGGED batch,
// applied atomically (lockstep.Mutator). If the request may have been
// applied, the error wraps lockstep.ErrUnknownOutcome.
func (s *Store) PutDelete(ctx context.Context, table, row string, ts int64, columns []string, cells ...lockstep.Cell) error {
	return s.core.PutDelete(ctx, table, row, ts, columns, cells...)
}

// Read returns the live cells of partition row of table that sl selects, in
// column order, with their write timestamps and remaining TTLs (zero for a
// cell without TTL). It pages through large results within the one call.
// Errors are plain failures; an invalid table name or a negative limit is
// refused before anything is sent.
func (s *Store) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	return s.core.Read(ctx, table, row, sl)
}

// driver sends the cell statements of package cqlstore through gocql.
type driver struct {
	session     *gocql.Session
	read, write gocql.Consistency
}

func (d driver) Write(ctx context.Context, stmt string, args [][]any) error {
	if len(args) == 1 {
		return d.session.Query(stmt, args[0]...).WithContext(ctx).Consistency(d.write).Idempotent(true).Exec()
	}
	b := d.session.NewBatch(gocql.UnloggedBatch)
	for _, a := range args {
		b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: stmt, Args: a, Idempotent: true})
	}
	b.SetConsistency(d.write)
	return d.session.ExecuteBatch(b.WithContext(ctx))
}

// WriteEach runs each statement with its arguments in one UNLOGGED batch
// of one partition (cqlstore.Driver).
func (d driver) WriteEach(ctx context.Context, stmts []string, args [][]any) error {
	if len(stmts) == 1 {
		return d.session.Query(stmts[0], args[0]...).WithContext(ctx).Consistency(d.write).Idempotent(true).Exec()
	}
	b := d.session.NewBatch(gocql.UnloggedBatch)
	for i, st := range stmts {
		b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: st, Args: args[i], Idempotent: true})
	}
	b.SetConsistency(d.write)
	return d.session.ExecuteBatch(b.WithContext(ctx))
}

func (d driver) Read(ctx context.Context, stmt string, args []any) cqlstore.Rows {
	return d.session.Query(stmt, args...).WithContext(ctx).Consistency(d.read).Idempotent(true).Iter().Scanner()
}
