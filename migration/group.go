package migration

import (
	"context"

	"github.com/lockstep-go/lockstep"
)

// LockGroup blocks until every request is held, as one lock, or ctx is done
// (lockstep.GroupLocker). The members are taken one by one in canonical
// order (ids ascending; with Options.Separator, each id's ancestors first,
// in its intention access), each as Lock takes an id: the flag is read and
// the phase checked for each, and each is taken by the mode's algorithm: in
// mode new in its access, in modes legacy and combined exclusively. When ctx
// ends first, or a
// member is refused, what was taken is released before it returns. A group
// of one request on flat ids is that id's lock itself.
func (l *Locker) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.groups.Group(ctx, reqs, false)
}

// TryLockGroup takes the members in canonical order as TryLock takes an id:
// the first that is busy makes it release the others and fail with an error
// wrapping lockstep.ErrLocked.
func (l *Locker) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.groups.Group(ctx, reqs, true)
}
