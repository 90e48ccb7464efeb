package lockstep

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Scope is where a lock's mutual exclusion holds: across every data centre
// of the cluster (global, the zero value) or within one data centre
// (LocalTo). A store has one scope (see Scoped), set when it is built, and
// the reads and writes it sends must be strong enough to keep it: package
// cassandra refuses consistency levels that cannot (docs/multi-dc.md).
//
// A DC-local lock's identity carries its data centre: the queue lock keeps
// the lock id of a store local to dc in the partition Row(id), "\x00" + dc +
// "\x00" + id, so it can neither collide with a global lock of the same id
// nor with another data centre's. Two processes in two data centres both hold
// LocalTo("dc1") and LocalTo("dc2") locks of one id at once: that is what
// DC-local means.
//
// A Scope is a small value, safe to copy and compare with ==.
type Scope struct {
	dc    string
	local bool
}

// LocalTo returns the scope of locks that exclude each other only within
// data centre dc, named as the cluster names it (nodetool status, the
// system.local table's data_center). A store refuses an invalid name (see
// ValidateDC).
func LocalTo(dc string) Scope { return Scope{dc: dc, local: true} }

// IsGlobal reports whether s is the global scope.
func (s Scope) IsGlobal() bool { return !s.local }

// DC returns the data centre of a DC-local scope, and "" for the global one.
func (s Scope) DC() string { return s.dc }

// String returns "global" or "local to <dc>".
func (s Scope) String() string {
	if s.IsGlobal() {
		return "global"
	}
	return fmt.Sprintf("local to %q", s.dc)
}

// Row returns the partition key a lock of id is kept under in scope s: id
// itself for the global scope, "\x00" + DC() + "\x00" + id for a DC-local
// one. Neither a valid id nor a data centre name has a NUL byte (ValidateID,
// ValidateDC), so no two (scope, id) pairs share a row; and the leading NUL
// keeps DC-local rows apart from every row the module derives from an id
// by appending to it (an election's record, id + "\x00" + "leader"; the
// ready probe's), whose first byte is the id's.
func (s Scope) Row(id string) string {
	if s.IsGlobal() {
		return id
	}
	return "\x00" + s.dc + "\x00" + id
}

// Scoped is the optional interface of a Store that serves one scope (package
// cassandra's, built WithLocalDC). A Store that does not implement it is
// global, so a wrapper of a Store must implement Scoped too, returning
// ScopeOf the store it wraps (as model.Faulty does): otherwise the Lockers
// on it take a DC-local store for a global one.
type Scoped interface {
	Scope() Scope
}

// ScopeOf returns store's scope: its Scope() if it implements Scoped, the
// global scope otherwise.
func ScopeOf(store Store) Scope {
	if s, ok := store.(Scoped); ok {
		return s.Scope()
	}
	return Scope{}
}

// MaxDCLen is the longest data centre name a scope accepts, in bytes.
const MaxDCLen = 128

// ValidateDC returns an error wrapping ErrInvalidConfig unless dc is a
// non-empty, valid UTF-8 data centre name of at most MaxDCLen bytes without
// NUL bytes or surrounding spaces.
func ValidateDC(dc string) error {
	var what string
	switch {
	case dc == "":
		what = "empty"
	case len(dc) > MaxDCLen:
		what = fmt.Sprintf("%d bytes, above %d", len(dc), MaxDCLen)
	case !utf8.ValidString(dc):
		what = "not valid UTF-8"
	case strings.IndexByte(dc, 0) >= 0:
		what = "contains a NUL byte"
	case strings.TrimSpace(dc) != dc:
		what = "has leading or trailing spaces"
	default:
		return nil
	}
	return &ConfigError{Field: "data centre", Reason: fmt.Sprintf("%q is %s: name the data centre as the cluster does "+
		"(nodetool status, or SELECT data_center FROM system.local), e.g. \"dc1\"", dc, what)}
}

// ScopeError is the error of a Locker that cannot keep its locks in its
// store's scope: a lock whose stored format has no room for a data centre
// (the legacy lock, the combined mode), or state that is fleet-wide by
// nature (migration's census and phase). It wraps ErrInvalidConfig.
type ScopeError struct {
	Locker string // the refusing Locker, e.g. "shadowlock"
	Scope  Scope  // the store's scope
	Reason string // why, and what to use instead
}

func (e *ScopeError) Error() string {
	return fmt.Sprintf("lockstep: invalid configuration: %s on a store %s: %s", e.Locker, e.Scope, e.Reason)
}

// Unwrap returns ErrInvalidConfig.
func (e *ScopeError) Unwrap() error { return ErrInvalidConfig }
