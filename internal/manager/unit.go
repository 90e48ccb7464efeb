package manager

import (
	"context"

	"github.com/lockstep-go/lockstep"
)

// Unit is one unit of work of a Locker (lockstep.Unit): its acquisitions
// are the Locker's, made for the unit (Who), so that they are reentrant
// (doc.go, "Reentrancy"), UnlockAll releases them, and under deadlock
// detection the unit is the identity whose waits and holdings are
// published, with its comment. Units made by Commented share one identity.
// Safe for concurrent use.
type Unit struct {
	l       *Locker
	id      *unitID // the reentrancy holder: compared by pointer
	comment string
}

// unitID names one unit of work; it is not empty, so two units never share
// an address.
type unitID struct{ _ byte }

var _ lockstep.Unit = (*Unit)(nil)

// Unit returns a new unit of work of l, whose deadlock reports show
// comment. It sends no request.
func (l *Locker) Unit(comment string) lockstep.Unit {
	return &Unit{l: l, id: &unitID{}, comment: comment}
}

func (u *Unit) who() Who { return Who{Holder: u.id, Comment: u.comment} }

// Lock is the Locker's Lock, reentrant for the unit.
func (u *Unit) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return u.l.group(ctx, u.who(), []lockstep.Request{{ID: id}}, false)
}

// TryLock is the Locker's TryLock, reentrant for the unit.
func (u *Unit) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return u.l.group(ctx, u.who(), []lockstep.Request{{ID: id}}, true)
}

// LockGroup is the Locker's LockGroup, reentrant for the unit.
func (u *Unit) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return u.l.group(ctx, u.who(), reqs, false)
}

// TryLockGroup is the Locker's TryLockGroup, reentrant for the unit.
func (u *Unit) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return u.l.group(ctx, u.who(), reqs, true)
}

// UnlockAll releases everything the unit holds through its Locker, as
// lockstep.Unit says.
func (u *Unit) UnlockAll(ctx context.Context) error { return u.l.UnlockAll(ctx, u.id) }

// Adopt is the Locker's Adopt (lockstep.Sharer), the adopted lock joining
// the unit as if the unit had taken it: its members are counted by the
// unit's later acquisitions, and UnlockAll releases it.
func (u *Unit) Adopt(ctx context.Context, tok string) (lockstep.Lock, error) {
	return u.l.adopt(ctx, u.id, tok)
}

// Commented returns the same unit of work whose later acquisitions show
// comment in deadlock reports.
func (u *Unit) Commented(comment string) lockstep.Unit {
	return &Unit{l: u.l, id: u.id, comment: comment}
}
