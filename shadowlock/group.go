package shadowlock

import (
	"context"

	"github.com/lockstep-go/lockstep"
)

// LockGroup blocks until every request is held, as one lock, or ctx is done.
// Members are taken in canonical order, each exclusively; when ctx ends first,
// what was taken is released.
func (l *Locker) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.sh.Group(ctx, reqs, false)
}

// TryLockGroup is LockGroup with TryLock's semantics for each member.
func (l *Locker) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.sh.Group(ctx, reqs, true)
}

// UnlockAll releases everything holder's acquisitions through this Locker
// hold, as lockstep.UnlockAller says.
func (l *Locker) UnlockAll(ctx context.Context, holder any) error {
	return l.sh.UnlockAll(ctx, holder)
}

var _ lockstep.UnlockAller = (*Locker)(nil)
