package cqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
)

// Driver sends the cell statements of a Store through one driver's session.
type Driver interface {
	// Write runs stmt once with each argument list, at the store's write
	// consistency and marked idempotent (every write carries an explicit
	// timestamp, so repeating it is harmless): one statement for one list,
	// one UNLOGGED batch for several, which all target one partition.
	Write(ctx context.Context, stmt string, args [][]any) error
	// WriteEach runs stmts[i] with args[i], all in one UNLOGGED batch of one
	// partition (one statement alone if there is one), at the store's write
	// consistency, idempotent: what lockstep.Mutator needs.
	WriteEach(ctx context.Context, stmts []string, args [][]any) error
	// Read runs a query at the store's read consistency, idempotent, and
	// returns its rows, paging as needed.
	Read(ctx context.Context, stmt string, args []any) Rows
}

// Rows is a driver's result scanner (both drivers' Iter.Scanner()).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	// Err reports the error that ended the iteration and releases it.
	Err() error
}

// Store is the lockstep.Store of both Cassandra stores, over a Driver. It
// validates every call before anything is sent, builds the statements and
// decodes the rows; the driver only sends. Safe for concurrent use.
type Store struct {
	driver Driver
	errs   Errors
	stmts  cache[Statements]
	scope  lockstep.Scope
}

var _ lockstep.Store = (*Store)(nil)

// NewStore returns a Store of scope on the tables of keyspace, reading at
// read and writing at write, which d applies. An unsafe keyspace name (see
// lockstep.ValidateName) or levels ValidateScope refuses for scope give an
// error wrapping lockstep.ErrInvalidConfig.
func NewStore(d Driver, errs Errors, keyspace string, scope lockstep.Scope, read, write Level) (*Store, error) {
	if err := lockstep.ValidateName("keyspace", keyspace); err != nil {
		return nil, err
	}
	if err := ValidateScope(scope, read, write); err != nil {
		return nil, err
	}
	return &Store{driver: d, errs: errs, scope: scope, stmts: cache[Statements]{keyspace: keyspace, build: newStatements}}, nil
}

// Scope returns the scope the store was built for (lockstep.Scoped).
func (s *Store) Scope() lockstep.Scope { return s.scope }

// NilSession is the error of a constructor given a nil session of driver
// (the session type, e.g. "*gocql.Session of github.com/gocql/gocql"). It
// says where a session comes from: both drivers' ClusterConfig.CreateSession.
func NilSession(driver string) error {
	return &lockstep.ConfigError{Field: "session", Reason: "nil " + driver +
		": pass a connected session, the one cluster.CreateSession() returned (cluster := gocql.NewCluster(hosts...))"}
}

// StatementsFor returns the cached statements of table, validating its name
// the first time it is seen.
func (s *Store) StatementsFor(table string) (*Statements, error) { return s.stmts.get(table) }

// Put writes cells into partition row of table in one request. An invalid
// table name or TTL, or a ctx already done, is refused before anything is
// sent, as a plain error. If the request may have been applied, the error
// wraps lockstep.ErrUnknownOutcome.
func (s *Store) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	st, err := s.StatementsFor(table)
	if err != nil {
		return err
	}
	for _, c := range cells {
		if err := ValidateTTL(c); err != nil {
			return err
		}
	}
	if len(cells) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: put %s: %w", s.errs.Name, table, err)
	}
	args := make([][]any, len(cells))
	for i, c := range cells {
		args[i] = putArgs(row, c)
	}
	return s.errs.Write("put", table, s.driver.Write(ctx, st.Put, args))
}

// putArgs are the arguments of the Put statement writing c into row.
func putArgs(row string, c lockstep.Cell) []any {
	value := c.Value
	if value == nil {
		// Both drivers send a nil slice as null, and a null value is a
		// tombstone: send an empty blob instead.
		value = []byte{}
	}
	return []any{c.Timestamp, int(c.TTL / time.Second), value, row, c.Column}
}

// Delete writes tombstones with timestamp ts for columns of partition row of
// table in one request. Bad input and a done ctx are refused before anything
// is sent. If the request may have been applied, the error wraps
// lockstep.ErrUnknownOutcome.
func (s *Store) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	st, err := s.StatementsFor(table)
	if err != nil {
		return err
	}
	if len(columns) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: delete %s: %w", s.errs.Name, table, err)
	}
	args := make([][]any, len(columns))
	for i, col := range columns {
		args[i] = []any{ts, row, col}
	}
	return s.errs.Write("delete", table, s.driver.Write(ctx, st.Delete, args))
}

// PutDelete writes tombstones with timestamp ts for columns and the cells
// into partition row of table in one request: one single-partition
// UNLOGGED batch, which Cassandra applies atomically and in isolation
// (lockstep.Mutator). Bad input and a done ctx are refused before anything
// is sent, as by Put and Delete. If the request may have been applied, the
// error wraps lockstep.ErrUnknownOutcome.
func (s *Store) PutDelete(ctx context.Context, table, row string, ts int64, columns []string, cells ...lockstep.Cell) error {
	st, err := s.StatementsFor(table)
	if err != nil {
		return err
	}
	for _, c := range cells {
		if err := ValidateTTL(c); err != nil {
			return err
		}
	}
	if len(columns)+len(cells) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: put and delete %s: %w", s.errs.Name, table, err)
	}
	stmts := make([]string, 0, len(columns)+len(cells))
	args := make([][]any, 0, len(columns)+len(cells))
	for _, col := range columns {
		stmts, args = append(stmts, st.Delete), append(args, []any{ts, row, col})
	}
	for _, c := range cells {
		stmts, args = append(stmts, st.Put), append(args, putArgs(row, c))
	}
	return s.errs.Write("put and delete", table, s.driver.WriteEach(ctx, stmts, args))
}

var _ lockstep.Mutator = (*Store)(nil)

// Read returns the live cells of partition row of table that sl selects, in
// column order, with their write timestamps and remaining TTLs (zero for a
// cell without TTL). Errors are plain failures; an invalid table name or a
// negative limit is refused before anything is sent.
func (s *Store) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	st, err := s.StatementsFor(table)
	if err != nil {
		return nil, err
	}
	if sl.Limit < 0 {
		return nil, fmt.Errorf("%s: read %s: negative limit %d", s.errs.Name, table, sl.Limit)
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
	cells, err := decodeCells(s.driver.Read(ctx, st.Read[ReadVariant(sl)], args))
	return cells, s.errs.Read(table, err)
}

// decodeCells scans rows of (column_name, value, WRITETIME(value),
// TTL(value)) into cells. TTL(value) is null for a cell without TTL, which
// both drivers scan as 0.
func decodeCells(rows Rows) ([]lockstep.Cell, error) {
	var cells []lockstep.Cell
	for rows.Next() {
		var (
			c   lockstep.Cell
			ttl int
		)
		if err := rows.Scan(&c.Column, &c.Value, &c.Timestamp, &ttl); err != nil {
			_ = rows.Err()
			return nil, err
		}
		c.TTL = time.Duration(ttl) * time.Second
		cells = append(cells, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return cells, nil
}

// MaxTTL is the longest TTL Cassandra accepts (20 years).
const MaxTTL = 630720000 * time.Second

// ValidateTTL accepts zero (no TTL) or a whole number of seconds up to
// MaxTTL.
func ValidateTTL(c lockstep.Cell) error {
	if c.TTL == 0 {
		return nil
	}
	field := fmt.Sprintf("TTL of cell %q", c.Column)
	if err := lockstep.ValidateTTL(field, c.TTL); err != nil {
		return err
	}
	if c.TTL > MaxTTL {
		return &lockstep.ConfigError{Field: field, Reason: fmt.Sprintf("%v exceeds Cassandra's maximum TTL of %v", c.TTL, MaxTTL)}
	}
	return nil
}
