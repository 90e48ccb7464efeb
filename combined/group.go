package combined

import (
	"context"

	"github.com/lockstep-go/lockstep"
)

// LockGroup blocks until every request is held, as one lock, or ctx is done
// (lockstep.GroupLocker): the members are taken one by one in canonical
// order (ids ascending; with Options.Separator, each id's ancestors first,
// in its intention access), each as Lock takes an id: both halves
// exclusively, whatever the member's access (doc.go, "Accesses"). When
// ctx ends first, what was taken is released before it returns. A group of
// one request on flat ids is that id's lock itself.
func (l *Locker) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.groups.Group(ctx, reqs, false)
}

// TryLockGroup takes the members in canonical order as TryLock takes an id:
// the first one whose queue half or legacy half is busy makes it
// release the others and fail with an error wrapping lockstep.ErrLocked.
func (l *Locker) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.groups.Group(ctx, reqs, true)
}
