// The readiness probe (probe.go): one text, so every Locker says the same
// thing about a missing table or a missing grant.

package setup

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
)

// ErrNotReady is wrapped by a failed probe. Packages re-export it.
var ErrNotReady = errors.New("lockstep: locker not ready")

// ProbeRow is the row read from each table: no lock id is likely to be named so,
// and reading a missing row costs one cheap read.
const ProbeRow = "lockstep-ready-probe"

// ProbeWriteRow is the partition ProbeWrites writes in: ProbeRow and a NUL byte, which no
// lock id may contain (lockstep.ValidateID), so no lock ever uses it.
const ProbeWriteRow = ProbeRow + "\x00"

// ProbeColumn is the one column ProbeWrites puts in ProbeWriteRow. Every probe of every
// process writes this same cell, so repeated probes leave one cell's
// tombstones, not one tombstone per process.
const ProbeColumn = "lockstep-ready-probe"

// ProbeWriteTTL is the TTL of the cell ProbeWrites puts: if its delete fails, the cell
// is gone this long after the write.
const ProbeWriteTTL = 10 * time.Second

// SchemaFix is what to do about a table that does not answer.
const SchemaFix = "create the lockstep tables with lockctl schema apply --keyspace <keyspace> " +
	"(schema.Apply; schema.Verify names what is missing), or fix the store's connection"

// NotReadyError is a failed readiness check: Msg says what and what to do; it
// unwraps to ErrNotReady and the cause.
type NotReadyError struct {
	Msg   string
	Cause error
}

func (e *NotReadyError) Error() string { return e.Msg }

// Unwrap returns ErrNotReady and the cause, so errors.Is matches both the
// readiness sentinel and the store's error (a driver's Unauthorized, say).
func (e *NotReadyError) Unwrap() []error { return []error{ErrNotReady, e.Cause} }

// NotReady returns the readiness error prefix+what+": "+fix wrapping cause,
// or, when ctx is done, cause as it is (the check did not finish).
func NotReady(ctx context.Context, prefix, what string, cause error, fix string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%sreadiness check: %w", prefix, cause)
	}
	return &NotReadyError{Msg: prefix + "not ready: " + what + ": " + fix, Cause: cause}
}

// ProbeTables reads ProbeRow of each table (at most one cell) and returns the first
// failure as NotReady does, prefixed with prefix (e.g. "queuelock: ").
func ProbeTables(ctx context.Context, store lockstep.Store, prefix string, tables ...string) error {
	for _, table := range tables {
		if _, err := store.Read(ctx, table, ProbeRow, lockstep.Slice{Limit: 1}); err != nil {
			return NotReady(ctx, prefix, fmt.Sprintf("table %s does not answer a read: %v", table, err), err, SchemaFix)
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

// ProbeWrites checks that each table takes a write: it puts one cell (ProbeColumn,
// with TTL ProbeWriteTTL) in ProbeWriteRow, a partition no lock uses, and deletes
// it. clk stamps both requests. The first failure is returned as
// NotReady does, prefixed with prefix; a refusal (lockstep.ErrRefused: a role
// without MODIFY) names the missing grant. A probe that fails between its
// write and its delete leaves at most that one cell, until its TTL.
func ProbeWrites(ctx context.Context, store lockstep.Store, clk lockstep.Clock, prefix string, tables ...string) error {
	for _, table := range tables {
		ts := clk.Now()
		err := store.Put(ctx, table, ProbeWriteRow, lockstep.Cell{Column: ProbeColumn, Timestamp: ts, TTL: ProbeWriteTTL})
		if err == nil {
			err = store.Delete(ctx, table, ProbeWriteRow, ts+1, ProbeColumn)
		}
		if err == nil {
			continue
		}
		if errors.Is(err, lockstep.ErrRefused) {
			return NotReady(ctx, prefix, fmt.Sprintf("table %s refuses a write: %v", table, err), err, GrantFix(table))
		}
		return NotReady(ctx, prefix, fmt.Sprintf("table %s does not take a write: %v", table, err), err, SchemaFix)
	}
	return nil
}
