package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
)

// ErrNotReady is wrapped by a failed probe. Packages re-export it.
var ErrNotReady = errors.New("lockstep: locker not ready")

// Row is the row read from each table: no lock id is likely to be named so,
// and reading a missing row costs one cheap read.
const Row = "lockstep-ready-probe"

// WriteRow is the partition Writes writes in: Row and a NUL byte, which no
// lock id may contain (lockstep.ValidateID), so no lock ever uses it.
const WriteRow = Row + "\x00"

// Column is the one column Writes puts in WriteRow. Every probe of every
// process writes this same cell, so repeated probes leave one cell's
// tombstones, not one tombstone per process.
const Column = "lockstep-ready-probe"

// WriteTTL is the TTL of the cell Writes puts: if its delete fails, the cell
// is gone this long after the write.
const WriteTTL = 10 * time.Second

// Fix is what to do about a table that does not answer.
const Fix = "create the lockstep tables with lockctl schema apply --keyspace <keyspace> " +
	"(schema.Apply; schema.Verify names what is missing), or fix the store's connection"

// Error is a failed readiness check: Msg says what and what to do; it
// unwraps to ErrNotReady and the cause.
type Error struct {
	Msg   string
	Cause error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns ErrNotReady and the cause, so errors.Is matches both the
// readiness sentinel and the store's error (a driver's Unauthorized, say).
func (e *Error) Unwrap() []error { return []error{ErrNotReady, e.Cause} }

// Failed returns the readiness error prefix+what+": "+fix wrapping cause,
// or, when ctx is done, cause as it is (the check did not finish).
func Failed(ctx context.Context, prefix, what string, cause error, fix string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%sreadiness check: %w", prefix, cause)
	}
	return &Error{Msg: prefix + "not ready: " + what + ": " + fix, Cause: cause}
}

// Tables reads Row of each table (at most one cell) and returns the first
// failure as Failed does, prefixed with prefix (e.g. "queuelock: ").
func Tables(ctx context.Context, store lockstep.Store, prefix string, tables ...string) error {
	for _, table := range tables {
		if _, err := store.Read(ctx, table, Row, lockstep.Slice{Limit: 1}); err != nil {
			return Failed(ctx, prefix, fmt.Sprintf("table %s does not answer a read: %v", table, err), err, Fix)
		}
	}
	return nil
}

// GrantFix is what to do about a table that refuses a write: the statement
// docs/security.md gives the application role for it.
func GrantFix(table string) string {
	return "grant the role this process connects as MODIFY on the table: " +
		"GRANT MODIFY ON TABLE <keyspace>." + table + " TO <role> " +
		"(the lockstep repository's docs/security.md lists every grant a role needs)"
}

// Writes checks that each table takes a write: it puts one cell (Column,
// with TTL WriteTTL) in WriteRow, a partition no lock uses, and deletes
// it. clk stamps both requests. The first failure is returned as
// Failed does, prefixed with prefix; a refusal (lockstep.ErrRefused: a role
// without MODIFY) names the missing grant. A probe that fails between its
// write and its delete leaves at most that one cell, until its TTL.
func Writes(ctx context.Context, store lockstep.Store, clk lockstep.Clock, prefix string, tables ...string) error {
	for _, table := range tables {
		ts := clk.Now()
		err := store.Put(ctx, table, WriteRow, lockstep.Cell{Column: Column, Timestamp: ts, TTL: WriteTTL})
		if err == nil {
			err = store.Delete(ctx, table, WriteRow, ts+1, Column)
		}
		if err == nil {
			continue
		}
		if errors.Is(err, lockstep.ErrRefused) {
			return Failed(ctx, prefix, fmt.Sprintf("table %s refuses a write: %v", table, err), err, GrantFix(table))
		}
		return Failed(ctx, prefix, fmt.Sprintf("table %s does not take a write: %v", table, err), err, Fix)
	}
	return nil
}
