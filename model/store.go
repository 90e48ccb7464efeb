package model

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
)

// DefaultGCGrace is Cassandra's default gc_grace_seconds: how long a
// tombstone is kept before compaction may drop it.
const DefaultGCGrace = 864000 * time.Second

// ErrInvalidCell is wrapped by the error a write returns for a cell the store
// refuses (a TTL that is negative, not whole seconds or above MaxTTL); nothing
// of that write is applied.
var ErrInvalidCell = errors.New("model: invalid cell")

// Store is an in-memory lockstep.Store with Cassandra's cell semantics: one
// replica, judging TTLs and purging tombstones by its own clock. Tables are
// created on first use. The zero Store is not usable; call New.
//
// A Store is safe for concurrent use. Every call holds one store-wide mutex,
// so each Put, Delete and Apply is atomic and isolated, like a single-partition
// Cassandra mutation.
type Store struct {
	clock       lockstep.Clock
	gcGrace     int64 // seconds
	autoCompact bool

	mu     sync.Mutex
	tables map[string]map[string]*partition

	stats statCounters
}

// Option configures a Store.
type Option func(*Store)

// WithGCGrace sets how long tombstones and expired cells are kept before they
// are purged (Cassandra's gc_grace_seconds). It must be a non-negative whole
// number of seconds; New panics otherwise. Default: DefaultGCGrace (10 days).
func WithGCGrace(d time.Duration) Option {
	return func(s *Store) {
		if d < 0 || d%time.Second != 0 {
			panic(fmt.Sprintf("model: WithGCGrace(%v): want a non-negative whole number of seconds", d))
		}
		s.gcGrace = int64(d / time.Second)
	}
}

// WithAutoCompaction sets whether each access to a partition first compacts
// it (at most once per second of the store's clock), dropping purgeable
// tombstones and turning expired cells into tombstones as Cassandra's
// compaction does. When off, only Compact does that. Default: on.
func WithAutoCompaction(on bool) Option {
	return func(s *Store) { s.autoCompact = on }
}

// New returns an empty Store that reads time from clock (which must not be
// nil). It panics on an invalid option: options are fixed by test code, so a
// bad one is a programming error.
func New(clock lockstep.Clock, opts ...Option) *Store {
	if clock == nil {
		panic("model: New with a nil clock")
	}
	s := &Store{
		clock:       clock,
		gcGrace:     int64(DefaultGCGrace / time.Second),
		autoCompact: true,
		tables:      make(map[string]map[string]*partition),
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

var _ lockstep.Store = (*Store)(nil)

// nowSec returns the store clock's current second.
func (s *Store) nowSec() int64 { return secondsOf(s.clock.Now()) }

// Put writes cells into the partition row of table in one atomic request. A
// cell's TTL must be zero or a positive whole number of seconds up to MaxTTL;
// otherwise Put returns an error wrapping ErrInvalidCell and writes nothing.
// An expiring cell expires at the store's current second plus its TTL. If ctx
// is already done, Put returns ctx.Err() and writes nothing.
func (s *Store) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := s.nowSec()
	stored := make([]StoredCell, len(cells))
	for i, c := range cells {
		ttl, err := ttlSeconds(c)
		if err != nil {
			return err
		}
		if ttl == 0 {
			stored[i] = LiveCell(c.Column, cloneBytes(c.Value), c.Timestamp)
		} else {
			stored[i] = ExpiringCell(c.Column, cloneBytes(c.Value), c.Timestamp, ttl, now)
		}
	}
	s.write(table, row, now, stored)
	s.stats.puts.Add(1)
	return nil
}

// PutDelete writes tombstones with timestamp ts for columns and the cells,
// in one atomic request (lockstep.Mutator). A bad TTL is refused as Put
// refuses it, writing nothing.
func (s *Store) PutDelete(ctx context.Context, table, row string, ts int64, columns []string, cells ...lockstep.Cell) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := s.nowSec()
	stored := make([]StoredCell, 0, len(columns)+len(cells))
	for _, col := range columns {
		stored = append(stored, TombstoneCell(col, ts, now))
	}
	for _, c := range cells {
		ttl, err := ttlSeconds(c)
		if err != nil {
			return err
		}
		if ttl == 0 {
			stored = append(stored, LiveCell(c.Column, cloneBytes(c.Value), c.Timestamp))
		} else {
			stored = append(stored, ExpiringCell(c.Column, cloneBytes(c.Value), c.Timestamp, ttl, now))
		}
	}
	s.write(table, row, now, stored)
	s.stats.puts.Add(1)
	return nil
}

var _ lockstep.Mutator = (*Store)(nil)

// ttlSeconds validates a written cell's TTL and returns it in seconds.
func ttlSeconds(c lockstep.Cell) (int64, error) {
	switch {
	case c.TTL < 0:
		return 0, fmt.Errorf("%w: column %q: negative TTL %v", ErrInvalidCell, c.Column, c.TTL)
	case c.TTL%time.Second != 0:
		return 0, fmt.Errorf("%w: column %q: TTL %v is not a whole number of seconds", ErrInvalidCell, c.Column, c.TTL)
	case c.TTL > MaxTTL*time.Second:
		return 0, fmt.Errorf("%w: column %q: TTL %v exceeds the maximum of %ds", ErrInvalidCell, c.Column, c.TTL, MaxTTL)
	}
	return int64(c.TTL / time.Second), nil
}

// Delete writes tombstones with timestamp ts, dated at the store's current
// second, for columns of the partition row of table, in one atomic request. If
// ctx is already done, Delete returns ctx.Err() and writes nothing.
func (s *Store) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := s.nowSec()
	stored := make([]StoredCell, len(columns))
	for i, col := range columns {
		stored[i] = TombstoneCell(col, ts, now)
	}
	s.write(table, row, now, stored)
	s.stats.deletes.Add(1)
	return nil
}

// Read returns the cells of the partition row of table that sl selects and
// that are live by the store's clock, in column order, with their remaining
// TTL rounded up to whole seconds. It counts the tombstones and expired cells
// it steps over (see Stats). If ctx is already done, Read returns ctx.Err().
func (s *Store) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if sl.Limit < 0 {
		return nil, fmt.Errorf("model: negative read limit %d", sl.Limit)
	}
	now := s.nowSec()
	var out []lockstep.Cell
	dead := s.walk(table, row, now, sl, func(c StoredCell, live bool) {
		if live {
			out = append(out, readCell(c, now))
		}
	})
	s.stats.reads.Add(1)
	s.stats.recordScan(dead)
	return out, nil
}

// readCell converts a live stored cell to what a read returns at nowSec.
func readCell(c StoredCell, nowSec int64) lockstep.Cell {
	out := lockstep.Cell{Column: c.Column, Value: cloneBytes(c.Value), Timestamp: c.Timestamp}
	if c.Kind == Expiring {
		// Cassandra's TTL() is localDeletionTime - nowInSec: the remaining
		// time rounded up to whole seconds.
		out.TTL = time.Duration(c.LocalDeletionTime-nowSec) * time.Second
	}
	return out
}

// Apply merges cells, as a replica receiving a mutation does, into the
// partition row of table by Reconcile, atomically. Expiring cells and
// tombstones carry the LocalDeletionTime their coordinator computed; the
// store only judges them by its own clock. It returns an error and applies
// nothing if a cell fails StoredCell.Validate.
func (s *Store) Apply(table, row string, cells ...StoredCell) error {
	stored := make([]StoredCell, len(cells))
	for i, c := range cells {
		if err := c.Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidCell, err)
		}
		stored[i] = c.normalized()
	}
	s.write(table, row, s.nowSec(), stored)
	s.stats.applies.Add(1)
	return nil
}

// Scan returns every stored cell of the partition row of table that sl
// selects, tombstones and expired cells included, as a replica answers a
// read: it stops after sl.Limit cells live by the store's clock (0 or less:
// no limit), and returns the dead cells it stepped over on the way, which it
// counts in Stats like Read. The cells are copies.
func (s *Store) Scan(table, row string, sl lockstep.Slice) []StoredCell {
	sl.Limit = max(sl.Limit, 0)
	var out []StoredCell
	dead := s.walk(table, row, s.nowSec(), sl, func(c StoredCell, _ bool) {
		out = append(out, c.clone())
	})
	s.stats.scans.Add(1)
	s.stats.recordScan(dead)
	return out
}

// Compact runs a compaction of every partition at the store clock's current
// second whether or not automatic compaction is on: tombstones and expired
// cells whose local deletion time is more than the gc grace in the past are
// dropped, other expired cells become tombstones. It returns how many cells it
// dropped.
func (s *Store) Compact() int {
	now := s.nowSec()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for table, rows := range s.tables {
		for row, p := range rows {
			n += p.purge(now, s.gcGrace)
			s.dropIfEmptyLocked(table, row, p)
		}
	}
	s.stats.purged.Add(int64(n))
	return n
}

// write applies normalized, owned cells to one partition atomically.
func (s *Store) write(table, row string, now int64, cells []StoredCell) {
	if len(cells) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rows := s.tables[table]
	if rows == nil {
		rows = make(map[string]*partition)
		s.tables[table] = rows
	}
	p := rows[row]
	if p == nil {
		p = &partition{}
		rows[row] = p
	}
	s.autoCompactLocked(p, now)
	for _, c := range cells {
		p.apply(c)
	}
}

// walk runs partition.walk on the partition row of table, if it exists,
// after automatic compaction, under the store's mutex.
func (s *Store) walk(table, row string, now int64, sl lockstep.Slice, visit func(StoredCell, bool)) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.tables[table][row]
	if p == nil {
		return 0
	}
	s.autoCompactLocked(p, now)
	dead := p.walk(sl, now, visit)
	s.dropIfEmptyLocked(table, row, p)
	return dead
}

// autoCompactLocked compacts p if automatic compaction is on and p was not
// compacted in this second yet.
func (s *Store) autoCompactLocked(p *partition, now int64) {
	if !s.autoCompact || (p.purged && p.purgedAt == now) {
		return
	}
	s.stats.purged.Add(int64(p.purge(now, s.gcGrace)))
}

// dropIfEmptyLocked forgets an empty partition, so memory stays flat in the
// number of live and not yet purgeable cells.
func (s *Store) dropIfEmptyLocked(table, row string, p *partition) {
	if len(p.cells) > 0 {
		return
	}
	delete(s.tables[table], row)
	if len(s.tables[table]) == 0 {
		delete(s.tables, table)
	}
}
