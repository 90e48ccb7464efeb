package combined

import (
	"context"

	"github.com/lockstep-go/lockstep"
)

// LockGroup blocks until every request is held, as one lock, or ctx is done.
// Members are taken in canonical order, each exclusively; when ctx ends first,
// what was taken is released.
func (l *Locker) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.group(ctx, reqs, false)
}

// TryLockGroup is LockGroup with TryLock's semantics for each member.
func (l *Locker) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.group(ctx, reqs, true)
}

// UnlockAll releases everything holder's acquisitions through this Locker
// hold, as lockstep.UnlockAller says.
func (l *Locker) UnlockAll(ctx context.Context, holder any) error {
	return l.sh.UnlockAll(ctx, holder)
}

// group is every acquisition of this Locker (Lock, TryLock, LockGroup,
// TryLockGroup): the lock manager's run of reqs, each member taken by this
// Locker's acquisition of one id (acquireOne). The manager plans the run
// and keeps what lies between members; it never calls back.
func (l *Locker) group(ctx context.Context, reqs []lockstep.Request, try bool) (lockstep.Lock, error) {
	run := l.sh.Start(ctx, reqs, try)
	for run.Next() {
		st := run.Step()
		st.Take(lockstep.Exclusive) // every member, whatever access is asked: the deadlock records say so
		run.Done(l.acquireOne(st.Ctx(), st.ID, st.Access, st.Try))
	}
	return run.Result()
}

var _ lockstep.UnlockAller = (*Locker)(nil)
