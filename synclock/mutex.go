package synclock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deref"
)

// DefaultUnlockTimeout is Options.UnlockTimeout's default.
const DefaultUnlockTimeout = 10 * time.Second

// Options configure a Mutex. A nil *Options means all defaults.
type Options struct {
	// Timeout bounds each Lock's wait; Lock panics with a *LockError
	// wrapping context.DeadlineExceeded when it passes. Default 0: no
	// deadline. Set it only where a panic is the right answer to a lock
	// that is not coming (a process that crashes and restarts).
	Timeout time.Duration
	// UnlockTimeout bounds the store requests of each Unlock. Default
	// DefaultUnlockTimeout.
	UnlockTimeout time.Duration
	// OnUnlockError, when set, receives the error of a release that failed
	// or that found the lease lost (errors.Is(err, lockstep.ErrLost)). It is
	// called on the goroutine calling Unlock, after the Mutex is unlocked,
	// and must not block long. Default nil: such errors are dropped (the
	// cells expire after their TTL).
	OnUnlockError func(error)
}

// Mutex is one lock id as a sync.Locker. Build it with New. Safe for
// concurrent use.
type Mutex struct {
	lk   lockstep.Locker
	id   string
	opts Options

	mu   sync.Mutex    // guards held; never held across a store request
	held lockstep.Lock // the current holding, nil when unlocked
}

var _ sync.Locker = (*Mutex)(nil)

// LockError is what Lock panics with when it cannot take the lock. It wraps
// the Locker's error, so errors.Is(err, lockstep.ErrClosed) and the like
// work on a recovered value.
type LockError struct {
	ID  string
	Err error
}

func (e *LockError) Error() string {
	return fmt.Sprintf("synclock: Lock %q failed and sync.Locker has no error to return: %v", e.ID, e.Err)
}

// Unwrap returns the Locker's error.
func (e *LockError) Unwrap() error { return e.Err }

// New returns a Mutex over lock id of lk. opts may be nil. A nil Locker, an
// invalid id or a negative duration return an error wrapping
// lockstep.ErrInvalidConfig or lockstep.ErrInvalidID.
func New(lk lockstep.Locker, id string, opts *Options) (*Mutex, error) {
	if lk == nil {
		return nil, &lockstep.ConfigError{Field: "Locker", Reason: "nil: pass a Locker (queuelock.New, migration.New)"}
	}
	if err := lockstep.ValidateID(id); err != nil {
		return nil, fmt.Errorf("synclock: %w", err)
	}
	o := deref.Of(opts)
	if o.Timeout < 0 {
		return nil, &lockstep.ConfigError{Field: "Timeout", Reason: fmt.Sprintf("%v is negative: use 0 for no deadline", o.Timeout)}
	}
	if o.UnlockTimeout < 0 {
		return nil, &lockstep.ConfigError{Field: "UnlockTimeout", Reason: fmt.Sprintf("%v is negative: use 0 for %v", o.UnlockTimeout, DefaultUnlockTimeout)}
	}
	o.UnlockTimeout = cmp.Or(o.UnlockTimeout, DefaultUnlockTimeout)
	return &Mutex{lk: lk, id: id, opts: o}, nil
}

// Lock blocks until the lock is held, with no deadline unless
// Options.Timeout set one. It panics with a *LockError when the Locker
// gives up (the package documentation lists when).
func (m *Mutex) Lock() {
	ctx := context.Background()
	if m.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.opts.Timeout)
		defer cancel()
	}
	l, err := m.lk.Lock(ctx, m.id)
	if err != nil {
		panic(&LockError{ID: m.id, Err: err})
	}
	m.hold(l)
}

// TryLock takes the lock only if nobody holds it or waits ahead, and
// reports whether it did, as sync.Mutex's TryLock. Any other error than
// lockstep.ErrLocked panics with a *LockError, as Lock's do.
func (m *Mutex) TryLock() bool {
	ctx := context.Background()
	if m.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.opts.Timeout)
		defer cancel()
	}
	l, err := m.lk.TryLock(ctx, m.id)
	if errors.Is(err, lockstep.ErrLocked) {
		return false
	}
	if err != nil {
		panic(&LockError{ID: m.id, Err: err})
	}
	m.hold(l)
	return true
}

func (m *Mutex) hold(l lockstep.Lock) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.held = l
}

// Unlock releases the lock. Unlock of a Mutex that is not locked panics,
// as sync.Mutex's does. A release that fails, or that finds the lease lost,
// still unlocks the Mutex and goes to Options.OnUnlockError.
func (m *Mutex) Unlock() {
	m.mu.Lock()
	l := m.held
	m.held = nil
	m.mu.Unlock()
	if l == nil {
		panic(fmt.Sprintf("synclock: Unlock of unlocked Mutex %q", m.id))
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.opts.UnlockTimeout)
	defer cancel()
	if err := l.Unlock(ctx); err != nil && m.opts.OnUnlockError != nil {
		m.opts.OnUnlockError(err)
	}
}

// Lost returns the current holding's loss signal (lockstep.Lock.Lost),
// closed once its lease is lost: a caller that looks at it before each
// step of its work never works past the lease. When the Mutex is not
// locked it returns a closed channel: there is nothing to protect.
func (m *Mutex) Lost() <-chan struct{} {
	m.mu.Lock()
	l := m.held
	m.mu.Unlock()
	if l == nil {
		return closed
	}
	return l.Lost()
}

// closed is the channel Lost returns when nothing is held.
var closed = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()
