package migration

import (
	"context"

	"github.com/lockstep-go/lockstep"
)

// LockGroup takes every request as one lock, each member as Lock takes an id.
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
	return l.groups.UnlockAll(ctx, holder)
}

// group is every acquisition of this Locker (Lock, TryLock, LockGroup,
// TryLockGroup): the lock manager's run of reqs, each member taken by
// acquire (the flag, the census, admission and the mode's algorithm). The
// manager plans the run and keeps what lies between members; it never
// calls back.
func (l *Locker) group(ctx context.Context, reqs []lockstep.Request, try bool) (lockstep.Lock, error) {
	run := l.groups.Start(ctx, reqs, try)
	for run.Next() {
		st := run.Step()
		run.Done(l.acquire(st.Ctx(), st.ID, st.Access, st.Try, st.Take))
	}
	return run.Result()
}

var _ lockstep.UnlockAller = (*Locker)(nil)
