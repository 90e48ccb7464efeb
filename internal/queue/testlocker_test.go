package queue

import (
	"context"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// core is the queue Locker, as testLocker embeds it.
type core = Locker

// testLocker is what queuelock.New builds — the lock manager over a queue
// Locker — with the core's fields and methods at hand for the tests.
type testLocker struct {
	*core
	*manager.Locker
}

// New returns the lock manager over a queue Locker on store, as
// queuelock.New does.
func New(store lockstep.Store, opts *Options) (*testLocker, error) {
	m, err := NewLocker(store, opts)
	if err != nil {
		return nil, err
	}
	return &testLocker{core: Core(m), Locker: m}, nil
}

func (l *testLocker) Close(ctx context.Context) error { return l.Locker.Close(ctx) }

// Share shares through the lock manager's algorithm, as queuelock's Share
// does: the local-handoff layer, when there is one, above the core.
func (l *testLocker) Share(lk lockstep.Lock) (string, error) { return l.Locker.Share(lk) }

func (l *testLocker) Adopt(ctx context.Context, tok string) (lockstep.Lock, error) {
	return l.Locker.Adopt(ctx, tok)
}

// acquireOne takes one flat id in access a (with try: one attempt).
func (l *testLocker) acquireOne(ctx context.Context, id string, a lockstep.Access, try bool) (lockstep.Lock, error) {
	if try {
		return l.TryLockGroup(ctx, lockstep.Request{ID: id, Access: a})
	}
	return l.LockGroup(ctx, lockstep.Request{ID: id, Access: a})
}
