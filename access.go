package lockstep

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Access is how an acquisition uses the resource a lock id names: the lock
// modes of multi-granularity locking (Gray, Lorie, Putzolu and Traiger,
// "Granularity of locks in a shared data base", 1975). Exclusive is the zero
// value, so a Request that names no access is exclusive, as Lock is.
//
// Two acquisitions of one id may hold at once exactly when their accesses
// are Compatible:
//
//	      IS   IX   S    SIX  X
//	IS    yes  yes  yes  yes  no
//	IX    yes  yes  no   no   no
//	S     yes  no   yes  no   no
//	SIX   yes  no   no   no   no
//	X     no   no   no   no   no
//
// The intention modes (IS, IX, SIX) are what a hierarchical lock takes on the
// ancestors of the id it locks (Hierarchy): locking "a/b" in S takes IS on
// "a", and locking "a/c" in X takes IX on "a", which do not conflict, while
// S or X on "a" itself conflicts with both.
type Access uint8

const (
	// Exclusive (X) excludes every other acquisition of the id: a writer.
	Exclusive Access = iota
	// Shared (S) shares the id with other Shared and IntentShared
	// acquisitions: a reader.
	Shared
	// IntentShared (IS) announces Shared acquisitions below the id.
	IntentShared
	// IntentExclusive (IX) announces Exclusive (or Shared) acquisitions below
	// the id.
	IntentExclusive
	// SharedIntentExclusive (SIX) reads the whole subtree and announces
	// Exclusive acquisitions below the id: Shared and IntentExclusive at once.
	SharedIntentExclusive

	accessCount = iota
)

var accessNames = [accessCount]string{Exclusive: "X", Shared: "S", IntentShared: "IS", IntentExclusive: "IX", SharedIntentExclusive: "SIX"}

// compatible is the matrix above, indexed [a][b].
var compatible = [accessCount][accessCount]bool{
	IntentShared:          {IntentShared: true, IntentExclusive: true, Shared: true, SharedIntentExclusive: true},
	IntentExclusive:       {IntentShared: true, IntentExclusive: true},
	Shared:                {IntentShared: true, Shared: true},
	SharedIntentExclusive: {IntentShared: true},
}

// String returns the access's short name: "X", "S", "IS", "IX" or "SIX".
func (a Access) String() string {
	if a.Valid() {
		return accessNames[a]
	}
	return fmt.Sprintf("Access(%d)", uint8(a))
}

// Valid reports whether a is one of the five accesses.
func (a Access) Valid() bool { return a < accessCount }

// Compatible reports whether acquisitions in a and b may hold one id at once.
// It is symmetric; an invalid access is compatible with nothing.
func (a Access) Compatible(b Access) bool {
	return a.Valid() && b.Valid() && compatible[a][b]
}

// Intention returns the access a hierarchical lock takes on the ancestors of
// an id it locks in a: IntentShared for Shared and IntentShared,
// IntentExclusive for the others.
func (a Access) Intention() Access {
	if a == Shared || a == IntentShared {
		return IntentShared
	}
	return IntentExclusive
}

// Covers reports whether holding a grants at least what b asks for: every
// access compatible with a is compatible with b. Reentrant acquisition
// (Unit) succeeds only for a request its held access covers.
func (a Access) Covers(b Access) bool {
	if !a.Valid() || !b.Valid() {
		return false
	}
	for c := range Access(accessCount) {
		if a.Compatible(c) && !b.Compatible(c) {
			return false
		}
	}
	return true
}

// Join returns the weakest access that covers both a and b: what one
// acquisition must take to serve both requests (S and IX join to SIX).
func Join(a, b Access) Access {
	best := Exclusive
	for c := range Access(accessCount) {
		if c.Covers(a) && c.Covers(b) && best.Covers(c) {
			best = c
		}
	}
	return best
}

// ParseAccess parses "X", "S", "IS", "IX" or "SIX", or the long names
// "exclusive", "shared", "intent-shared", "intent-exclusive" and
// "shared-intent-exclusive" (case-insensitive, surrounding white space
// ignored). Any other string returns an error wrapping ErrInvalidAccess.
func ParseAccess(s string) (Access, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "x", "exclusive":
		return Exclusive, nil
	case "s", "shared":
		return Shared, nil
	case "is", "intent-shared":
		return IntentShared, nil
	case "ix", "intent-exclusive":
		return IntentExclusive, nil
	case "six", "shared-intent-exclusive":
		return SharedIntentExclusive, nil
	}
	return 0, fmt.Errorf("%w: %q (want X, S, IS, IX or SIX)", ErrInvalidAccess, s)
}

// ErrInvalidAccess is returned for an access string or value that is not one
// of the five accesses.
var ErrInvalidAccess = errors.New("lockstep: invalid access")

// Request asks for one lock id in one access, as a member of a group
// (GroupLocker). Flags, if not zero, declare how the caller reads the id
// (Flat, NoMask); the members a group Lock reports (Grouped) carry none.
type Request struct {
	ID     string
	Access Access
	Flags  Flags
}

// String renders the request as "<id>:<access>", followed by ":<flags>"
// when it has flags.
func (r Request) String() string {
	if r.Flags != 0 {
		return r.ID + ":" + r.Access.String() + ":" + r.Flags.String()
	}
	return r.ID + ":" + r.Access.String()
}

// GroupLocker is implemented by the Lockers of this module that take lock
// groups: several (id, access) requests held as one lock.
//
// A group is acquired in one canonical order — ids ascending bytewise, each
// id once, in the Join of the accesses asked for it (with a Hierarchy, after
// adding the intention locks of every ancestor, which sort before their
// descendants) — so two groups never wait for each other in a cycle: a
// process only ever waits for an id above every id it holds, and FIFO order
// among the waiters of one id does the rest (docs/algorithms.md, Theorem 11,
// has the argument). The Lock returned is one handle: one Lost, closed when any
// member's lease is lost, and one Unlock, which releases the members in the
// reverse order. When ctx ends, or TryLockGroup meets a busy member, the
// members already taken are released before the call returns, and the
// error says which request stopped it.
type GroupLocker interface {
	Locker
	// LockGroup blocks until every request is held or ctx is done. An empty
	// group, an invalid id or access, returns an error wrapping
	// ErrInvalidID or ErrInvalidAccess, having taken nothing.
	LockGroup(ctx context.Context, reqs ...Request) (Lock, error)
	// TryLockGroup takes the members in canonical order, each as TryLock
	// would; the first that is busy makes it release the others and return
	// an error wrapping ErrLocked.
	TryLockGroup(ctx context.Context, reqs ...Request) (Lock, error)
}

// UnitLocker is implemented by every Locker of this module: Unit returns a
// new unit of work of the Locker.
type UnitLocker interface {
	GroupLocker
	// Unit returns a new unit of work, whose deadlock reports show comment
	// (seed 003's lock($comment); "" for none). It sends no request.
	Unit(comment string) Unit
}

// Unit is one unit of work of a Locker (seed 003's effective identifier):
// its Lock, TryLock, LockGroup and TryLockGroup are the Locker's, made
// reentrant for the unit. A request for an id that an acquisition of the
// same unit already holds, in an access the held one Covers, is granted at
// once with no store request, and the Lock it returns only counts: the
// acquisition is released by the Unlock that balances the first one. A
// request the held access does not cover (S held, X asked) fails with an
// error wrapping ErrUpgrade instead of waiting for itself. A Locker's own
// Lock, outside any unit, is never reentrant: a second acquisition of an
// id this process holds waits for the first to be released, like one from
// another process.
//
// Go has no thread identity, so the caller makes the unit explicit: one
// per request, job or session, shared by the goroutines that work for it.
// Two goroutines sharing a unit share its locks, so they must not need
// exclusion from each other. Under deadlock detection the unit is the
// identity whose waits and holdings are published, and its comment is
// shown in the DeadlockError of a cycle it is part of. Safe for concurrent
// use.
type Unit interface {
	// Lock, TryLock, LockGroup and TryLockGroup are the Locker's, for the
	// unit (GroupLocker says what each does).
	Lock(ctx context.Context, id string) (Lock, error)
	TryLock(ctx context.Context, id string) (Lock, error)
	LockGroup(ctx context.Context, reqs ...Request) (Lock, error)
	TryLockGroup(ctx context.Context, reqs ...Request) (Lock, error)
	// UnlockAll releases everything the unit holds through its Locker
	// (seed 003's unlockAll): each Lock the unit's acquisitions returned
	// and not yet released is unlocked as its Unlock would, so a later
	// Unlock of it returns nil; an acquisition still in progress is not
	// waited for. The error joins the locks' release errors (ErrLost for a
	// lease already lost).
	UnlockAll(ctx context.Context) error
	// Commented returns the same unit of work (the same holdings, the same
	// reentrancy) whose later acquisitions show comment in deadlock
	// reports. Any bytes are kept byte for byte, UTF-8 or not; lockd
	// carries comments as protobuf strings, which are UTF-8.
	Commented(comment string) Unit
}

// Grouped is implemented by the Lock a GroupLocker returns: the members it
// holds, in canonical order (intention locks of a Hierarchy included). ID
// returns the requests the caller made, joined by ", ".
type Grouped interface {
	Members() []Request
}

// ErrUpgrade is returned by a reentrant acquisition that asks more of an id
// than its unit of work already holds (Unit): waiting would wait for the
// unit itself. Release the weaker lock and take the stronger one, or
// take the stronger one first.
var ErrUpgrade = errors.New("lockstep: reentrant acquisition asks a stronger access than its holder holds")
