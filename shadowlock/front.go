package shadowlock

import (
	"context"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/internal/setup"
	"github.com/lockstep-go/lockstep/internal/shadow"
)

// Locker takes legacy shadow-table locks. Every goroutine contends in the
// store on its own, as the legacy code does. Safe for concurrent use.
type Locker manager.Locker

var (
	_ lockstep.GroupLocker = (*Locker)(nil)
	_ lockstep.UnitLocker  = (*Locker)(nil)
)

// ErrNotReady is wrapped by the error Ready returns when a legacy table does
// not answer. It is the same value as migration.ErrNotReady.
var ErrNotReady = setup.ErrNotReady

// New returns a Locker on store. A nil opts means all defaults. Invalid
// options, and a DC-local store (lockstep.ScopeOf; the legacy format has
// no room for a data centre), return an error wrapping
// lockstep.ErrInvalidConfig.
func New(store lockstep.Store, opts *Options) (*Locker, error) {
	m, err := shadow.NewLocker(store, opts)
	if err != nil {
		return nil, err
	}
	return (*Locker)(m), nil
}

// Lock repeats rounds until it holds the lock or ctx is done, sleeping a
// random time between rounds (up to 1s while someone holds the lock). A store
// error ends a round, which is retried, unless it is a refusal no retry can
// change (lockstep.ErrRefused: a missing permission or table), which Lock
// returns at once. When ctx ends first it returns an
// error for which errors.Is(err, ctx.Err()) holds, having deleted its cells.
func (l *Locker) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.m().Lock(ctx, id)
}

// TryLock fails with ErrLocked when someone holds the lock, or after
// lockstep.MaxTryAttempts rounds that met a concurrent attempt. A store error
// ends it, its cells deleted.
func (l *Locker) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.m().TryLock(ctx, id)
}

// LockGroup blocks until every request is held, as one lock, or ctx is done.
// Members are taken in canonical order, each exclusively; when ctx ends first,
// what was taken is released.
func (l *Locker) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.m().LockGroup(ctx, reqs...)
}

// TryLockGroup is LockGroup with TryLock's semantics for each member.
func (l *Locker) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.m().TryLockGroup(ctx, reqs...)
}

// Unit returns a new unit of work of this Locker, whose deadlock reports
// show comment, as lockstep.Unit says: its acquisitions are reentrant for
// the unit, and its UnlockAll releases them. It sends no request.
func (l *Locker) Unit(comment string) lockstep.Unit { return l.m().Unit(comment) }

// Ready reads one row of each legacy table, writing nothing: call it once at
// startup, so a missing keyspace or table shows then. The error wraps
// ErrNotReady and the store's error.
func (l *Locker) Ready(ctx context.Context) error { return l.core().Ready(ctx) }

// Close makes further calls fail with ErrClosed, ends waits in flight,
// releases every lock still held and waits for its goroutines.
func (l *Locker) Close(ctx context.Context) error { return l.m().Close(ctx) }

// m is l as the lock manager's Locker it is.
func (l *Locker) m() *manager.Locker { return (*manager.Locker)(l) }

// core is the algorithm's core below l's lock manager (internal/shadow).
func (l *Locker) core() *shadow.Locker { return l.m().Algorithm().(*shadow.Locker) }
