package manager

import (
	"context"

	"github.com/lockstep-go/lockstep"
)

// Lock is a Locker's Lock (with try: TryLock) of id, exclusively. With flat
// ids and no reentrancy holder in ctx it is the Locker's own acquisition,
// untouched: the same store requests and the same lock value as before
// groups existed, so the uncontended exclusive Lock + Unlock of the queue
// lock stays 3 requests. Otherwise it is a group of one request: under a
// separator, the intention locks of id's ancestors are taken first.
func (m *Manager) Lock(ctx context.Context, id string, try bool) (lockstep.Lock, error) {
	return m.Group(ctx, []lockstep.Request{{ID: id}}, try)
}

// Group is a Locker's LockGroup (with try: TryLockGroup). A group of one
// request with flat ids and no reentrancy holder in ctx is that request's
// lock itself, as the Locker's own acquisition returns it (it has no
// Members; its ID is the id); anything else is Acquire's group.
func (m *Manager) Group(ctx context.Context, reqs []lockstep.Request, try bool) (lockstep.Lock, error) {
	if _, reentrant := lockstep.ReentrancyHolder(ctx); len(reqs) == 1 && m.sep == "" && !reentrant && reqs[0].Access.Valid() {
		return m.one(ctx, reqs[0].ID, reqs[0].Access, try)
	}
	return m.Acquire(ctx, reqs, try)
}
