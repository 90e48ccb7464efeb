package cassandra

import (
	"context"
	"sync"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra/cqlstore"
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
	d := driver{session: session, read: c.read, write: c.write, dc: c.scope.DC()}
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

// driver sends the cell statements of package cqlstore through gocql. A
// DC-local store's driver (dc set) checks the coordinator of every answer
// and refuses one from another data centre (cqlstore.CheckCoordinator): the
// host of a query's result (Iter.Host, the last page's for a read) and, for
// a batch, of every successful attempt (a BatchObserver of the store's own,
// which takes the place of the session's for those batches).
type driver struct {
	session     *gocql.Session
	read, write gocql.Consistency
	dc          string // the DC-local store's data centre, "" for a global store
}

func (d driver) Write(ctx context.Context, stmt string, args [][]any) error {
	if len(args) == 1 {
		iter := d.session.Query(stmt, args[0]...).WithContext(ctx).Consistency(d.write).Idempotent(true).Iter()
		host := iter.Host()
		if err := iter.Close(); err != nil {
			return err
		}
		return d.check(host)
	}
	b := d.session.NewBatch(gocql.UnloggedBatch)
	for _, a := range args {
		b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: stmt, Args: a, Idempotent: true})
	}
	b.SetConsistency(d.write)
	var remote batchCoordinators
	if d.dc != "" {
		b.Observer(&remote)
	}
	if err := d.session.ExecuteBatch(b.WithContext(ctx)); err != nil {
		return err
	}
	for _, h := range remote.hosts() {
		if err := d.check(h); err != nil {
			return err
		}
	}
	return nil
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
	iter := d.session.Query(stmt, args...).WithContext(ctx).Consistency(d.read).Idempotent(true).Iter()
	if d.dc == "" {
		return iter.Scanner()
	}
	return checkedRows{Scanner: iter.Scanner(), iter: iter, d: d}
}

// check refuses an answer from a coordinator outside a DC-local store's data
// centre.
func (d driver) check(host *gocql.HostInfo) error {
	if host == nil {
		return nil
	}
	return cqlstore.CheckCoordinator(d.dc, host.ConnectAddress().String(), host.DataCenter())
}

// checkedRows is a DC-local read's rows: Err also refuses rows from a
// coordinator of another data centre.
type checkedRows struct {
	gocql.Scanner
	iter *gocql.Iter
	d    driver
}

func (r checkedRows) Err() error {
	if err := r.Scanner.Err(); err != nil {
		return err
	}
	return r.d.check(r.iter.Host())
}

// batchCoordinators records the coordinators of a batch's successful
// attempts.
type batchCoordinators struct {
	mu sync.Mutex
	hs []*gocql.HostInfo
}

func (b *batchCoordinators) ObserveBatch(_ context.Context, o gocql.ObservedBatch) {
	if o.Err == nil && o.Host != nil {
		b.mu.Lock()
		b.hs = append(b.hs, o.Host)
		b.mu.Unlock()
	}
}

func (b *batchCoordinators) hosts() []*gocql.HostInfo {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.hs
}
