package lockstep

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sentinel errors. Callers test for them with errors.Is; the packages of this
// module wrap them with context.
var (
	// ErrLocked is returned by TryLock when the lock is held, or another
	// acquisition is ahead of this one in line.
	ErrLocked = errors.New("lockstep: lock is held by another owner")
	// ErrLost is returned by the first Unlock after the lease was lost.
	ErrLost = errors.New("lockstep: lease lost")
	// ErrReleased is returned when an operation needs a held lock and the
	// lock was already released.
	ErrReleased = errors.New("lockstep: lock already released")
	// ErrIncompatibleMode is returned when a process's configured mode cannot
	// run beside the fleet's phase without breaking mutual exclusion.
	ErrIncompatibleMode = errors.New("lockstep: incompatible lock mode")
	// ErrInvalidMode is returned for a mode string or value that is not
	// legacy, combined or new.
	ErrInvalidMode = errors.New("lockstep: invalid mode")
	// ErrInvalidID is returned for an empty, oversized or malformed lock id.
	ErrInvalidID = errors.New("lockstep: invalid lock id")
	// ErrInvalidConfig is returned by constructors for options that would make
	// the lock unsafe or unusable; the message says which and why.
	ErrInvalidConfig = errors.New("lockstep: invalid configuration")
	// ErrClosed is returned by a Locker after Close.
	ErrClosed = errors.New("lockstep: locker closed")
	// ErrStaleToken is returned by a fenced resource (package fence) that
	// refused a write because it carried a fencing token below the highest
	// the resource has already accepted: the writer's lock passed to a newer
	// owner, so its write must not land. Nothing was written.
	ErrStaleToken = errors.New("lockstep: stale fencing token")
	// ErrForeignCell is returned by Lock and TryLock when a lock row holds a
	// cell that no lockstep algorithm writes: another writer shares the
	// table. The acquisition leaves nothing behind and does not touch the
	// cell. The error is a *ForeignCellError, which says where the cell is.
	ErrForeignCell = errors.New("lockstep: foreign cell in a lock row")
	// ErrRefused is wrapped by a store's error when the store refused a
	// request for a reason that retrying cannot change: a missing
	// permission (grant it), keyspace or table (create the schema), or a
	// request the server finds invalid. Nothing was applied. Lock and the
	// other waiting calls fail at once on it, as TryLock does, instead of
	// retrying until their ctx ends; the error names what is missing.
	ErrRefused = errors.New("lockstep: refused by the store (retrying cannot help)")
)

// MaxIDLen is the longest lock id accepted, in bytes. Lock ids become
// Cassandra partition keys and parts of column names; the bound keeps every
// cell well inside Cassandra's limits and logs readable.
const MaxIDLen = 512

// ValidateID returns an error wrapping ErrInvalidID unless id is a non-empty,
// valid UTF-8 string of at most MaxIDLen bytes without NUL bytes.
func ValidateID(id string) error {
	var what string
	switch {
	case id == "":
		what = "empty"
	case len(id) > MaxIDLen:
		what = fmt.Sprintf("%d bytes", len(id))
	case !utf8.ValidString(id):
		what = "not valid UTF-8"
	case strings.IndexByte(id, 0) >= 0:
		what = "contains a NUL byte"
	default:
		return nil
	}
	return fmt.Errorf("%w: %s: a lock id is 1 to %d bytes of UTF-8 without NUL; "+
		"name the resource the lock guards, and hash longer names (e.g. hex SHA-256, 64 bytes)", ErrInvalidID, what, MaxIDLen)
}

// ConfigError reports an invalid option. It wraps ErrInvalidConfig.
type ConfigError struct {
	Field  string // the option, e.g. "TTL"
	Reason string // why the value is refused
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("lockstep: invalid configuration: %s: %s", e.Field, e.Reason)
}

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// ForeignCellError reports a cell in a lock row that no lockstep algorithm
// writes. It wraps ErrForeignCell.
type ForeignCellError struct {
	Table  string // the lock table, e.g. "queue_lock"
	Row    string // the lock id
	Column string // the cell's column
	Reason string // what about it is not lockstep's
}

func (e *ForeignCellError) Error() string {
	return fmt.Sprintf("lockstep: foreign cell in a lock row: table %s, row %q, column %q: %s; "+
		"another writer shares the table: give lockstep tables of its own, "+
		"or delete the cell once that writer is stopped (this call left nothing behind)",
		e.Table, e.Row, e.Column, e.Reason)
}

// Unwrap returns ErrForeignCell.
func (e *ForeignCellError) Unwrap() error { return ErrForeignCell }
