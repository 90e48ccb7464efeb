package probe

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
)

// ErrNotReady is wrapped by a failed probe. Packages re-export it.
var ErrNotReady = errors.New("lockstep: locker not ready")

// Row is the row read from each table: no lock id is likely to be named so,
// and reading a missing row costs one cheap read.
const Row = "lockstep-ready-probe"

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
