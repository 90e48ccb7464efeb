package shadowlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/ident"
)

// Locker takes legacy shadow-table locks. Every goroutine contends in the
// store on its own, as the legacy code does. Safe for concurrent use.
type Locker struct {
	store  lockstep.Store
	cfg    config
	ts     *clock.Timestamps
	owners *ident.Owners

	closing context.Context
	close   context.CancelFunc
	calls   sync.WaitGroup

	mu     sync.Mutex // guards closed, held and cfg.rand
	closed bool
	held   map[*handle]struct{}
}

var _ lockstep.Locker = (*Locker)(nil)

// New returns a Locker on store. A nil opts means all defaults. Invalid
// options return an error wrapping lockstep.ErrInvalidConfig.
func New(store lockstep.Store, opts *Options) (*Locker, error) {
	if store == nil {
		return nil, &lockstep.ConfigError{Field: "Store", Reason: "nil store"}
	}
	cfg, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Locker{
		store: store, cfg: cfg, ts: clock.NewTimestamps(cfg.Clock), owners: ident.NewOwners(cfg.Process),
		closing: ctx, close: cancel, held: make(map[*handle]struct{}),
	}, nil
}

// Lock is listing 5: it repeats listing 4 until Success, sleeping a uniform
// random time in [0, 1000 ms] after AnotherThreadIsOwner and in
// [0, 50·attempt ms] after ConcurrentAttempt. A store error ends the round
// (its cells are deleted) and is retried after the short backoff. When ctx
// ends first, Lock returns an error for which errors.Is(err, ctx.Err()) holds,
// having deleted its cells.
func (l *Locker) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.acquire(ctx, id, false)
}

// TryLock runs listing 4 once and fails with ErrLocked unless it returns
// Success.
func (l *Locker) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.acquire(ctx, id, true)
}

func (l *Locker) acquire(ctx context.Context, id string, try bool) (lockstep.Lock, error) {
	if err := lockstep.ValidateID(id); err != nil {
		return nil, err
	}
	if !l.enter() {
		return nil, lockstep.ErrClosed
	}
	defer l.calls.Done()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(l.closing, func() { cancel(lockstep.ErrClosed) })
	defer stop()

	start := l.cfg.Clock.Now()
	r := &round{l: l, id: id, owner: l.owners.Next()}
	rounds, err := l.run(ctx, r, try)
	if err != nil && errors.Is(context.Cause(ctx), lockstep.ErrClosed) {
		err = fmt.Errorf("shadowlock: %q: %w", id, lockstep.ErrClosed)
	}
	var h *handle
	if err == nil {
		h = newHandle(r)
		l.track(h)
	}
	e := lockstep.AcquireEvent{ID: id, Mode: lockstep.Legacy, Try: try, Acquired: h != nil, Err: err,
		Attempts: rounds, Requests: r.requests, Wait: time.Duration(l.cfg.Clock.Now()-start) * time.Microsecond}
	if h != nil {
		e.Owner = h.owner
	}
	l.cfg.Observer.ObserveAcquire(ctx, e)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// run executes listing 5 (or listing 4 once, for try) and returns how many
// rounds it took.
func (l *Locker) run(ctx context.Context, r *round, try bool) (int, error) {
	attempt := 1
	for rounds := 1; ; rounds++ {
		out, err := r.try(ctx)
		if err != nil {
			r.cleanup(ctx)
			if ctx.Err() != nil {
				return rounds, fmt.Errorf("shadowlock: %q: %w (last store error: %v)", r.id, ctx.Err(), err)
			}
			if try {
				return rounds, fmt.Errorf("shadowlock: %q: %w", r.id, err)
			}
			l.cfg.Logger.Warn("shadowlock: store error; retrying", "id", r.id, "err", err)
			// A cell of this owner may still exist, or a delete of it may
			// still be in flight: retrying under the same owner id could take
			// that cell for a held lock (listing 4, step 3) just before the
			// delete lands. The next round therefore uses a fresh owner id.
			r.owner = l.owners.Next()
			out = ConcurrentAttempt
		}
		var backoff time.Duration
		switch out {
		case Success:
			return rounds, nil
		case AnotherThreadIsOwner:
			if try {
				return rounds, fmt.Errorf("shadowlock: %q: %w", r.id, lockstep.ErrLocked)
			}
			backoff = l.uniform(1000 * time.Millisecond)
		case ConcurrentAttempt:
			if try {
				return rounds, fmt.Errorf("shadowlock: %q: %w (concurrent attempt)", r.id, lockstep.ErrLocked)
			}
			backoff = l.uniform(time.Duration(50*attempt) * time.Millisecond)
			attempt++
		}
		if err := l.cfg.Clock.Sleep(ctx, backoff); err != nil {
			return rounds, fmt.Errorf("shadowlock: %q: %w", r.id, err)
		}
	}
}

// uniform draws a duration uniformly from [0, max].
func (l *Locker) uniform(max time.Duration) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return time.Duration(l.cfg.rand.Int64N(int64(max) + 1))
}

func (l *Locker) enter() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.calls.Add(1)
	return true
}

func (l *Locker) track(h *handle) {
	l.mu.Lock()
	l.held[h] = struct{}{}
	l.mu.Unlock()
}

func (l *Locker) untrack(h *handle) {
	l.mu.Lock()
	delete(l.held, h)
	l.mu.Unlock()
}

// Close makes further calls fail with ErrClosed, ends waits in flight,
// releases every lock still held and waits for their renewal goroutines.
func (l *Locker) Close(ctx context.Context) error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.close()
	l.calls.Wait()
	l.mu.Lock()
	hs := make([]*handle, 0, len(l.held))
	for h := range l.held {
		hs = append(hs, h)
	}
	l.mu.Unlock()
	var errs []error
	for _, h := range hs {
		if err := h.Unlock(ctx); err != nil && !errors.Is(err, lockstep.ErrLost) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
