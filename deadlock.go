package lockstep

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrDeadlock is returned by a blocking acquisition of a Locker with
// deadlock detection (DeadlockDetection) that was chosen to break a cycle of
// waits: it and other callers each waited for an id another of them held.
// The acquisition released whatever the call took, so the others proceed;
// the error is a *DeadlockError, which lists the cycle. Retry the unit of
// work after releasing what it still holds, or take its ids in one group
// (LockGroup), whose canonical order cannot deadlock.
var ErrDeadlock = errors.New("lockstep: deadlock")

// DeadlockMember is one member of a cycle a DeadlockError reports: a wait
// of one caller, what it waited for, and who held it.
type DeadlockMember struct {
	// Process is the waiting Locker's process id.
	Process string
	// Waits is the id the member waited for, and the access its Locker
	// takes it in: the one asked, or Exclusive where the Locker takes
	// every request exclusively (legacy, combined, a migration Locker in
	// those modes), even for a Shared request.
	Waits Request
	// HeldBy is the Owner() of the Lock, returned to the next member's
	// caller, that holds Waits.ID in the access that excluded this member:
	// compare it with the Owner() of the handles a unit of work holds to
	// find the one to release. For a lock of one id it is that lock's
	// owner id; for a lock of several members (a group, or a hierarchical
	// id with its ancestors' intention locks) it is the handle's Owner(),
	// its first member's owner id, even where Waits.ID is another member,
	// whose cell in the store carries an owner id of its own. In a Unit a
	// member counted by a later acquisition keeps the Owner() of the
	// handle that took it.
	HeldBy string
	// HeldIn is the access in which the next member held Waits.ID.
	HeldIn Access
	// Comment is the comment of the member's unit of work (Unit,
	// Unit.Commented), byte for byte (through lockd, as UTF-8).
	Comment string
}

// DeadlockError is the error of an acquisition chosen as the victim of a
// cycle of waits (ErrDeadlock). Cycle starts with the victim; each member
// waits for an id the next one holds, the last for one the first holds.
type DeadlockError struct {
	Cycle []DeadlockMember
}

func (e *DeadlockError) Error() string {
	var b strings.Builder
	b.WriteString("lockstep: deadlock: this call waited in a cycle of ")
	fmt.Fprintf(&b, "%d waits and was chosen to break it (it released what it took): ", len(e.Cycle))
	for i, m := range e.Cycle {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s waits for %s held in %v by %s", m.Process, m.Waits, m.HeldIn, m.HeldBy)
		if m.Comment != "" {
			fmt.Fprintf(&b, " (%q)", m.Comment)
		}
	}
	b.WriteString(": release what the unit of work holds and retry it, or take its ids in one LockGroup")
	return b.String()
}

// Unwrap returns ErrDeadlock.
func (e *DeadlockError) Unwrap() error { return ErrDeadlock }

// DeadlockDetection switches on deadlock detection for a Locker (the
// Options.Deadlock of queuelock, shadowlock, combined and migration). A
// blocking acquisition that has waited longer than After publishes what it
// waits for and what its unit of work holds (the Unit, or the call) in Table, renews it every Every while it waits, and fails with
// ErrDeadlock if it is the chosen victim of a cycle of such waits
// (docs/algorithms.md, section 8.5). Every process of the fleet that should
// see the others' waits must use the same Table and Partition.
//
// A wait's holdings are those of its unit of work: the Unit's locks, or,
// outside a unit, what the same LockGroup call took before. Nested Lock
// calls made outside a unit are unrelated calls to the Locker, so a cycle
// through them is not seen: make the unit of work explicit with the
// Locker's Unit. TryLock and TryLockGroup never wait and are never
// part of a cycle.
type DeadlockDetection struct {
	// After is how long a wait lasts before it is published. Default 1s.
	After time.Duration
	// Every is how often a published wait is renewed and the cycle looked
	// for. Default 1s; at least 100ms.
	Every time.Duration
	// Table holds the wait records (schema creates it). Default
	// "lock_waits".
	Table string
	// Partition is the row every wait record of the fleet is written to.
	// Default "waits".
	Partition string
}

// Resolve returns d with defaults filled in, or a *ConfigError.
func (d DeadlockDetection) Resolve() (DeadlockDetection, error) {
	d.After = cmp.Or(d.After, time.Second)
	d.Every = cmp.Or(d.Every, time.Second)
	d.Table = cmp.Or(d.Table, "lock_waits")
	d.Partition = cmp.Or(d.Partition, "waits")
	switch {
	case d.After < 0:
		return d, &ConfigError{Field: "Deadlock.After", Reason: fmt.Sprintf("%v is negative: use 0 for the default 1s", d.After)}
	case d.Every < 100*time.Millisecond:
		return d, &ConfigError{Field: "Deadlock.Every", Reason: fmt.Sprintf("%v is below 100ms: each round writes and reads the store; use 0 for the default 1s", d.Every)}
	}
	if err := ValidateName("Deadlock.Table", d.Table); err != nil {
		return d, err
	}
	if err := ValidateID(d.Partition); err != nil {
		return d, &ConfigError{Field: "Deadlock.Partition", Reason: err.Error()}
	}
	return d, nil
}
