package combined

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/go-multierror"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Options configure the two underlying lockers. Nil means defaults. Both must
// use the same Clock and ProcessID if set; the TTLs may differ (the legacy one
// must match what the legacy fleet uses).
type Options struct {
	Queue  *queuelock.Options
	Legacy *shadowlock.Options
}

// Locker takes combined locks. Safe for concurrent use.
type Locker struct {
	queue  *queuelock.Locker
	legacy *shadowlock.Locker
}

var _ lockstep.Locker = (*Locker)(nil)

// New returns a combined Locker on store. Invalid options return an error
// wrapping lockstep.ErrInvalidConfig.
func New(store lockstep.Store, opts *Options) (*Locker, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	q, err := queuelock.New(store, o.Queue)
	if err != nil {
		return nil, fmt.Errorf("combined: queue lock: %w", err)
	}
	l, err := shadowlock.New(store, o.Legacy)
	if err != nil {
		_ = q.Close(context.Background())
		return nil, fmt.Errorf("combined: legacy lock: %w", err)
	}
	return &Locker{queue: q, legacy: l}, nil
}

// Lock takes the queue lock, then the legacy lock, waiting for each; when ctx
// ends first it releases what it took and returns an error for which
// errors.Is(err, ctx.Err()) holds.
func (l *Locker) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.acquire(ctx, id, false)
}

// TryLock tries the queue lock, then the legacy lock, once each; it fails with
// ErrLocked, holding nothing, if either is taken.
func (l *Locker) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.acquire(ctx, id, true)
}

func (l *Locker) acquire(ctx context.Context, id string, try bool) (lockstep.Lock, error) {
	take := func(lk lockstep.Locker) (lockstep.Lock, error) {
		if try {
			return lk.TryLock(ctx, id)
		}
		return lk.Lock(ctx, id)
	}
	q, err := take(l.queue)
	if err != nil {
		return nil, fmt.Errorf("combined: %w", err)
	}
	g, err := take(l.legacy)
	if err != nil {
		if uerr := q.Unlock(context.WithoutCancel(ctx)); uerr != nil {
			err = errors.Join(err, uerr)
		}
		return nil, fmt.Errorf("combined: %w", err)
	}
	return newHandle(q, g), nil
}

// Close closes both lockers, releasing what they hold.
func (l *Locker) Close(ctx context.Context) error {
	var result *multierror.Error
	if err := l.legacy.Close(ctx); err != nil {
		result = multierror.Append(result, err)
	}
	if err := l.queue.Close(ctx); err != nil {
		result = multierror.Append(result, err)
	}
	return result.ErrorOrNil()
}

// handle holds both locks. Safe for concurrent use.
type handle struct {
	queue, legacy lockstep.Lock
	lost          chan struct{}
	stop          chan struct{}
	wg            sync.WaitGroup
	once          sync.Once
	unlockErr     error
}

func newHandle(q, g lockstep.Lock) *handle {
	h := &handle{queue: q, legacy: g, lost: make(chan struct{}), stop: make(chan struct{})}
	h.wg.Add(1)
	go func() { // merges the two loss signals; ends on loss or Unlock
		defer h.wg.Done()
		select {
		case <-q.Lost():
		case <-g.Lost():
		case <-h.stop:
			return
		}
		close(h.lost)
	}()
	return h
}

func (h *handle) ID() string            { return h.queue.ID() }
func (h *handle) Owner() string         { return h.queue.Owner() }
func (h *handle) Mode() lockstep.Mode   { return lockstep.Combined }
func (h *handle) Lost() <-chan struct{} { return h.lost }

// LegacyOwner is the owner id written in the legacy tables.
func (h *handle) LegacyOwner() string { return h.legacy.Owner() }

// Unlock releases the legacy lock, then the queue lock (reverse order of
// acquisition), and returns both errors aggregated. Idempotent: later calls
// return what the first returned.
func (h *handle) Unlock(ctx context.Context) error {
	h.once.Do(func() {
		var result *multierror.Error
		if err := h.legacy.Unlock(ctx); err != nil {
			result = multierror.Append(result, err)
		}
		if err := h.queue.Unlock(ctx); err != nil {
			result = multierror.Append(result, err)
		}
		close(h.stop)
		h.wg.Wait()
		h.unlockErr = result.ErrorOrNil()
	})
	return h.unlockErr
}
