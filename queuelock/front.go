package queuelock

import (
	"context"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/internal/queue"
	"github.com/lockstep-go/lockstep/internal/setup"
)

// Locker takes queue locks on a Store. One Locker stands for one process: its
// goroutines contending for the same id queue in-process, and only one of them
// at a time contends in the store. Safe for concurrent use.
type Locker manager.Locker

var (
	_ lockstep.GroupLocker = (*Locker)(nil)
	_ lockstep.UnitLocker  = (*Locker)(nil)
	_ lockstep.Sharer      = (*Locker)(nil)
)

// ErrNotReady is wrapped by the error Ready returns when the Locker's table
// does not answer. It is the same value as migration.ErrNotReady.
var ErrNotReady = setup.ErrNotReady

// New returns a Locker on store (nil opts: defaults), whose locks have the
// store's scope. Invalid options return an error wrapping
// lockstep.ErrInvalidConfig.
func New(store lockstep.Store, opts *Options) (*Locker, error) {
	m, err := queue.NewLocker(store, opts)
	if err != nil {
		return nil, err
	}
	return (*Locker)(m), nil
}

// Lock blocks until the lock named id is held or ctx is done, keeping its
// place in line and retrying store errors, but not a refusal
// (lockstep.ErrRefused: a missing permission or table).
func (l *Locker) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.m().Lock(ctx, id)
}

// TryLock makes one attempt: it fails with ErrLocked, having deleted
// whatever it wrote, when the lock is held or awaited in a conflicting
// access.
func (l *Locker) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.m().TryLock(ctx, id)
}

// LockGroup blocks until every request is held, as one lock, or ctx is
// done. Members are taken in canonical order; when ctx ends first, what was
// taken is released.
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

// Share returns a token naming l, which this Locker returned and still
// holds, as lockstep.Sharer says. It sends no request. From now on l's
// Unlock leaves the lock to the other holders instead of deleting it; with
// Options.LocalHandoff, it no longer hands l on to another acquisition of
// this Locker either (docs/algorithms.md, section 4.15).
func (l *Locker) Share(lk lockstep.Lock) (string, error) { return l.m().Share(lk) }

// Adopt makes this Locker a holder of the lock tok names (lockstep.Sharer):
// per id it reads that another holder is still there, writes its own owner
// cell and reads again. An id that fails undoes its writes and is named in
// the error; the ids adopted before it stay adopted.
func (l *Locker) Adopt(ctx context.Context, tok string) (lockstep.Lock, error) {
	return l.m().Adopt(ctx, tok)
}

// Ready reads one row of the Locker's table, writing nothing: call it once
// at startup, so a missing keyspace or table shows then rather than at the
// first Lock. The error wraps ErrNotReady and the store's error.
func (l *Locker) Ready(ctx context.Context) error { return l.core().Ready(ctx) }

// Scope returns the scope of this Locker's locks: its store's, read at New
// (lockstep.ScopeOf).
func (l *Locker) Scope() lockstep.Scope { return l.core().Scope() }

// Close makes further calls fail with ErrClosed, ends the waits in flight,
// releases every lock still held and waits for its goroutines. ctx bounds
// the releases.
func (l *Locker) Close(ctx context.Context) error { return l.m().Close(ctx) }

// m is l as the lock manager's Locker it is.
func (l *Locker) m() *manager.Locker { return (*manager.Locker)(l) }

// core is the algorithm's core below l's lock manager (internal/queue).
func (l *Locker) core() *queue.Locker { return queue.Core(l.m()) }
