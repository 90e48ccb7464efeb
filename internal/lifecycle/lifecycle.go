// Package lifecycle is how a Locker runs, apart from any algorithm: the
// calls in flight and the locks held, which Close ends, releases and waits
// for (Tracker: the lock manager's Locker, internal/manager.Locker, keeps
// one, so "Close releases what it holds and joins its goroutines" is
// written once; each algorithm's core keeps one for the parts it takes for
// a composer); the goroutines it
// starts and the waits another goroutine ends, through which a simulator
// orders them (Go, Resumed: goroutine.go); Unlocks of one lock one at a
// time (Mutex: serial.go); and the in-process turns that queue a process's
// goroutines contending for one lock id, so that one of them at a time
// talks to the store about it (Turns: turn.go, used by the queue lock).
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/lockstep-go/lockstep"
)

// Tracker tracks calls and held locks of type H. The zero value is ready to
// use; it is safe for concurrent use.
type Tracker[H interface {
	comparable
	Unlock(context.Context) error
}] struct {
	once    sync.Once
	closing context.Context
	cancel  context.CancelFunc
	calls   sync.WaitGroup

	mu     sync.Mutex
	closed bool
	held   map[H]struct{}
}

func (t *Tracker[H]) init() {
	t.once.Do(func() {
		t.closing, t.cancel = context.WithCancel(context.Background())
		t.held = make(map[H]struct{})
	})
}

// Enter registers a call. It returns ctx bound to the tracker, so that Close
// cancels it with cause lockstep.ErrClosed, and a function the call must run
// when it returns. After Close it returns lockstep.ErrClosed.
func (t *Tracker[H]) Enter(ctx context.Context) (context.Context, func(), error) {
	t.init()
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, nil, lockstep.ErrClosed
	}
	t.calls.Add(1)
	t.mu.Unlock()
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(t.closing, func() { cancel(lockstep.ErrClosed) })
	return ctx, func() {
		stop()
		cancel(nil)
		t.calls.Done()
	}, nil
}

// ClosedBy reports whether ctx, from Enter, ended because of Close.
func ClosedBy(ctx context.Context) bool { return errors.Is(context.Cause(ctx), lockstep.ErrClosed) }

// Track records a held lock.
func (t *Tracker[H]) Track(h H) {
	t.init()
	t.mu.Lock()
	t.held[h] = struct{}{}
	t.mu.Unlock()
}

// Untrack forgets a released lock.
func (t *Tracker[H]) Untrack(h H) {
	t.init()
	t.mu.Lock()
	delete(t.held, h)
	t.mu.Unlock()
}

// Close makes further calls fail with lockstep.ErrClosed, ends the calls in
// flight and waits for them, then releases every lock still held (bounded by
// ctx) and returns their errors joined; a lock whose lease had been lost is
// not an error here.
func (t *Tracker[H]) Close(ctx context.Context) error {
	t.init()
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cancel()
	t.calls.Wait()
	t.mu.Lock()
	hs := slices.Collect(maps.Keys(t.held))
	t.mu.Unlock()
	var errs []error
	for _, h := range hs {
		if err := h.Unlock(ctx); err != nil && !errors.Is(err, lockstep.ErrLost) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Do runs one Lock, TryLock or part acquisition for id: it validates id,
// registers the call (f gets ctx bound to the tracker), and reports an error
// of f that Close caused as one wrapping lockstep.ErrClosed, prefixed with
// the package's name.
func (t *Tracker[H]) Do(ctx context.Context, prefix, id string, f func(ctx context.Context) error) error {
	if err := lockstep.ValidateID(id); err != nil {
		return err
	}
	ctx, done, err := t.Enter(ctx)
	if err != nil {
		return err
	}
	defer done()
	if err = f(ctx); err != nil && ClosedBy(ctx) {
		return fmt.Errorf("%s: %q: %w", prefix, id, lockstep.ErrClosed)
	}
	return err
}
