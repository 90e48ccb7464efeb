package lockstep

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Cell is one column of one partition: the unit the algorithms read and write.
type Cell struct {
	// Column is the cell's name. Cells of a partition are ordered bytewise by
	// Column.
	Column string
	// Value is the cell's payload. Nil and empty are the same.
	Value []byte
	// Timestamp is the write timestamp in microseconds. Writes set it
	// explicitly (USING TIMESTAMP); reads report the winning write's.
	Timestamp int64
	// TTL is the cell's time to live. On a write, zero means the cell never
	// expires; otherwise it must be a whole number of seconds, as Cassandra
	// only keeps seconds. On a read it is the time the cell has left (zero for
	// a cell without TTL), rounded up to whole seconds.
	TTL time.Duration
}

// Slice selects the live cells of one partition with From <= Column < To, in
// column order, at most Limit of them.
type Slice struct {
	// From is the inclusive lower bound; "" starts at the first cell.
	From string
	// To is the exclusive upper bound; "" means no upper bound.
	To string
	// Limit caps the number of cells returned; 0 means no cap.
	Limit int
}

// Store is the storage the algorithms run on: a set of tables of partitions of
// cells with Cassandra's semantics (see the package documentation). The
// production implementation is package cassandra; package model holds an
// in-memory one and a simulated cluster.
//
// Every call is one request. A Store must be safe for concurrent use. A write
// or delete whose outcome is unknown (a timeout) returns an error wrapping
// ErrUnknownOutcome: the caller must assume it may have been applied.
type Store interface {
	// Put writes cells into the partition row of table in one request, each
	// with its own Timestamp and TTL.
	Put(ctx context.Context, table, row string, cells ...Cell) error
	// Delete writes tombstones with timestamp ts for the named columns of the
	// partition row of table, in one request.
	Delete(ctx context.Context, table, row string, ts int64, columns ...string) error
	// Read returns the live cells of the partition row of table that s
	// selects, in column order.
	Read(ctx context.Context, table, row string, s Slice) ([]Cell, error)
}

// Mutator is a Store that can also write cells and tombstones in one
// request: PutDelete writes tombstones with timestamp ts for the named
// columns of the partition row of table and the given cells, as one
// single-partition mutation (on Cassandra, one unlogged batch of one
// partition: applied atomically and in isolation on each replica). A queue
// Locker with Options.Handoff uses it to end its hold and hand the lock to
// the next waiter in one round trip, and every queue Locker to give a
// holder's queue cell up with its first renewal; a Store without it makes
// those Lockers send a Put and a Delete instead. The outcome rules are
// Put's and Delete's. A wrapper that has the method but whose inner store
// has none returns an error wrapping errors.ErrUnsupported, having sent
// nothing: the Lockers then fall back as for a Store without it.
type Mutator interface {
	PutDelete(ctx context.Context, table, row string, ts int64, columns []string, cells ...Cell) error
}

// ErrUnknownOutcome marks a store error after which the write may or may not
// have been applied (a timeout, a lost connection mid-request).
var ErrUnknownOutcome = errors.New("lockstep: store request outcome unknown")

var identRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)

// ValidateName returns an error wrapping ErrInvalidConfig unless name is a safe
// Cassandra identifier for a keyspace or table: a lower-case letter followed by
// at most 47 lower-case letters, digits or underscores. Names are never
// quoted or escaped; anything else is refused, so no CQL is ever built from
// untrusted text.
func ValidateName(kind, name string) error {
	if !identRE.MatchString(name) {
		return &ConfigError{Field: kind, Reason: fmt.Sprintf("%q is not a safe identifier: use 1 to 48 of lower-case letters, digits and '_', starting with a letter (e.g. %q), and the same name in schema.WithTables", name, suggestName(name))}
	}
	return nil
}

// ValidateTTL returns an error wrapping ErrInvalidConfig unless ttl is a
// positive whole number of seconds, the only TTLs Cassandra stores.
func ValidateTTL(field string, ttl time.Duration) error {
	switch {
	case ttl <= 0:
		return &ConfigError{Field: field, Reason: fmt.Sprintf("%v must be positive: use a whole number of seconds, or leave it 0 for the default", ttl)}
	case ttl%time.Second != 0:
		return &ConfigError{Field: field, Reason: fmt.Sprintf("%v is not a whole number of seconds (Cassandra TTLs are seconds): use %v", ttl, (ttl + time.Second - 1).Truncate(time.Second))}
	}
	return nil
}

// suggestName turns name into a safe identifier for ValidateName's error:
// lower case, every other byte '_', a leading letter, cut to 48 bytes.
func suggestName(name string) string {
	b := []byte(strings.ToLower(name))
	for i, c := range b {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] < 'a' || b[0] > 'z' {
		b = append([]byte("t_"), b...)
	}
	return string(b[:min(len(b), 48)])
}
