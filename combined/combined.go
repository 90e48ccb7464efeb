package combined

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-multierror"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
	"github.com/lockstep-go/lockstep/internal/serial"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Options configure the two underlying lockers. Nil means defaults. Both must
// use the same Clock and ProcessID if set; the TTLs may differ (the legacy one
// must match what the legacy fleet uses).
type Options struct {
	Queue  *queuelock.Options
	Legacy *shadowlock.Options
	// Fencing, when set, gives every combined acquisition one fencing token
	// (lockstep.Fenced), drawn after both halves are held, from the global
	// time service; the halves draw none, so Queue.Fencing and
	// Legacy.Fencing must be left unset. Use the same global time table as
	// every other Locker of the fleet, so tokens increase across owners
	// taken in any mode. Default none: Token returns 0.
	Fencing *clock.Global
}

// drawRetry is how long Lock pauses after a failed token draw before it
// takes the lock again: the global time table is failing, and retrying at
// once would only add load.
const drawRetry = 50 * time.Millisecond

// Locker takes combined locks. Safe for concurrent use.
type Locker struct {
	queue   *queuelock.Locker
	legacy  *shadowlock.Locker
	fencing *clock.Global
	clock   lockstep.Clock             // for the pause after a failed draw
	life    lifecycle.Tracker[*handle] // calls in flight and combined locks held, for Close
}

var _ lockstep.Locker = (*Locker)(nil)

// New returns a combined Locker on store. Invalid options return an error
// wrapping lockstep.ErrInvalidConfig.
func New(store lockstep.Store, opts *Options) (*Locker, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if (o.Queue != nil && o.Queue.Fencing != nil) || (o.Legacy != nil && o.Legacy.Fencing != nil) {
		return nil, &lockstep.ConfigError{Field: "Queue.Fencing/Legacy.Fencing",
			Reason: "a combined lock draws one token for both halves: set combined Options.Fencing and leave the halves' Fencing unset"}
	}
	var clk lockstep.Clock = &clock.Local{}
	if o.Queue != nil && o.Queue.Clock != nil {
		clk = o.Queue.Clock
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
	return &Locker{queue: q, legacy: l, fencing: o.Fencing, clock: clk}, nil
}

// Lock takes the queue lock, then the legacy lock, waiting for each; when ctx
// ends first it releases what it took and returns an error for which
// errors.Is(err, ctx.Err()) holds. If the queue lock is lost while the legacy
// lock is awaited, Lock gives both up and starts again from the queue; so it
// does, with Options.Fencing, when the token draw failed (after a short
// pause) or the token arrived after either lease lapsed.
func (l *Locker) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.acquire(ctx, id, false)
}

// TryLock tries the queue lock, then the legacy lock, each without waiting
// for a holder (each retries a mere concurrent attempt a bounded number of
// times, see lockstep.Locker); it fails with ErrLocked, holding nothing, if
// either is taken (and with an error wrapping ErrLost if the queue lock was
// lost in between, or, with Options.Fencing, the token arrived after either
// lease lapsed; with the store's error if the draw failed).
func (l *Locker) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.acquire(ctx, id, true)
}

// errQueueLost ends a wait for the legacy lock whose queue lock was lost.
var errQueueLost = fmt.Errorf("queue lock lost while taking the legacy lock: %w", lockstep.ErrLost)

func (l *Locker) acquire(ctx context.Context, id string, try bool) (lockstep.Lock, error) {
	ctx, done, err := l.life.Enter(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	for {
		var q lockstep.Lock
		if try {
			q, err = l.queue.TryLock(ctx, id)
		} else {
			q, err = l.queue.Lock(ctx, id)
		}
		if err != nil {
			return nil, l.failed(ctx, id, err)
		}
		g, err := l.takeLegacy(ctx, id, q, try)
		var token int64
		drawFailed := false
		if err == nil {
			if token, err = l.fence(ctx, q, g); err == nil {
				h := newHandle(l, q, g)
				h.token = token
				l.life.Track(h)
				return h, nil
			}
			drawFailed = !errors.Is(err, fencing.ErrLapsed)
			if uerr := g.Unlock(context.WithoutCancel(ctx)); uerr != nil && !errors.Is(uerr, lockstep.ErrLost) {
				err = errors.Join(err, uerr)
			}
		}
		if uerr := q.Unlock(context.WithoutCancel(ctx)); uerr != nil && !errors.Is(uerr, lockstep.ErrLost) {
			err = errors.Join(err, uerr)
		}
		again := errors.Is(err, errQueueLost) || errors.Is(err, fencing.ErrLapsed) || drawFailed
		if try || !again || ctx.Err() != nil {
			return nil, l.failed(ctx, id, err)
		}
		if drawFailed {
			if serr := l.clock.Sleep(ctx, drawRetry); serr != nil {
				return nil, l.failed(ctx, id, fmt.Errorf("%w (last error: %v)", serr, err))
			}
		}
	}
}

// fence draws the one token of a combined acquisition, once both halves are
// held, and keeps it only if both leases were still open when it arrived
// (internal/fencing has the argument; each half's Lost checks its own
// deadline). On error the caller gives both halves up.
func (l *Locker) fence(ctx context.Context, q, g lockstep.Lock) (int64, error) {
	if l.fencing == nil {
		return 0, nil
	}
	return fencing.Draw(ctx, l.fencing, func() bool { return !closed(q.Lost()) && !closed(g.Lost()) })
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// takeLegacy takes the legacy lock while holding queue lock q. Only the
// queue's head may contend on the legacy tables (DESIGN §4.5), so the
// attempt ends with errQueueLost, holding nothing, as soon as q is lost — a
// waiter that kept contending after losing its place would compete with the
// legacy algorithm's unfairness and starve.
func (l *Locker) takeLegacy(ctx context.Context, id string, q lockstep.Lock, try bool) (lockstep.Lock, error) {
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-q.Lost():
			cancel(errQueueLost)
		case <-stop:
		}
	})
	var g lockstep.Lock
	var err error
	if try {
		g, err = l.legacy.TryLock(lctx, id)
	} else {
		g, err = l.legacy.Lock(lctx, id)
	}
	close(stop)
	wg.Wait()
	if err != nil {
		if errors.Is(context.Cause(lctx), errQueueLost) && ctx.Err() == nil {
			return nil, errQueueLost
		}
		return nil, err
	}
	select {
	case <-q.Lost(): // lost while the legacy lock was being taken: checks the deadline too
		_ = g.Unlock(context.WithoutCancel(ctx))
		return nil, errQueueLost
	default:
	}
	return g, nil
}

// failed wraps the error of an acquisition, as lockstep.ErrClosed if Close
// ended it.
func (l *Locker) failed(ctx context.Context, id string, err error) error {
	if lifecycle.ClosedBy(ctx) {
		return fmt.Errorf("combined: %q: %w", id, lockstep.ErrClosed)
	}
	return fmt.Errorf("combined: %w", err)
}

// Close makes further calls fail with lockstep.ErrClosed, ends the waits in
// flight, releases every combined lock still held (legacy, then queue) and
// waits for their goroutines, then closes both lockers.
func (l *Locker) Close(ctx context.Context) error {
	var result *multierror.Error
	if err := l.life.Close(ctx); err != nil {
		result = multierror.Append(result, err)
	}
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
	l             *Locker
	queue, legacy lockstep.Lock
	token         int64 // fencing token; 0 without fencing
	lost          chan struct{}
	lostOnce      sync.Once
	stop          chan struct{}
	wg            sync.WaitGroup

	// unlockMu is held for a whole Unlock, so concurrent calls serialize.
	unlockMu serial.Mutex
	stopped  bool // the loss watcher ended and Close forgot us: an Unlock ran
}

var (
	_ lockstep.Lock   = (*handle)(nil)
	_ lockstep.Fenced = (*handle)(nil)
)

func newHandle(l *Locker, q, g lockstep.Lock) *handle {
	h := &handle{l: l, queue: q, legacy: g, lost: make(chan struct{}), stop: make(chan struct{})}
	h.wg.Add(1)
	go func() { // merges the two loss signals; ends on loss or Unlock
		defer h.wg.Done()
		select {
		case <-q.Lost():
		case <-g.Lost():
		case <-h.stop:
			return
		}
		h.markLost()
	}()
	return h
}

func (h *handle) markLost() { h.lostOnce.Do(func() { close(h.lost) }) }

func (h *handle) ID() string          { return h.queue.ID() }
func (h *handle) Owner() string       { return h.queue.Owner() }
func (h *handle) Mode() lockstep.Mode { return lockstep.Combined }

// Token is the one fencing token drawn for this acquisition once both
// halves were held (Options.Fencing), or 0 without fencing.
func (h *handle) Token() int64 { return h.token }

// Lost is closed once either lease is lost. It asks both leases, whose Lost
// checks its own deadline, so that a caller looking at Lost before working
// never works past either lease, even before any goroutine has noticed the
// loss (after a pause, or when the queue lease ran out while the legacy lock
// was being taken).
func (h *handle) Lost() <-chan struct{} {
	select {
	case <-h.queue.Lost():
		h.markLost()
	case <-h.legacy.Lost():
		h.markLost()
	default:
	}
	return h.lost
}

// LegacyOwner is the owner id written in the legacy tables.
func (h *handle) LegacyOwner() string { return h.legacy.Owner() }

// Unlock releases the legacy lock, then the queue lock (reverse order of
// acquisition), and returns both errors joined. It follows lockstep.Lock's
// contract: each half is itself idempotent and retriable, so a later call
// retries only the half whose delete failed (the other returns nil without a
// request) and returns nil at once when both are released. The queue lock is
// released even if the legacy delete failed: this holder's critical section
// is over, its renewals must stop, and the next queue head waits on the
// legacy tables until the legacy cell is deleted by a retry or expires. Close
// of the combined Locker retries what is left through both lockers' Close.
func (h *handle) Unlock(ctx context.Context) error {
	if err := h.unlockMu.Lock(ctx); err != nil {
		return fmt.Errorf("combined: unlock %q: waiting for another Unlock: %w", h.ID(), err)
	}
	defer h.unlockMu.Unlock()
	legacyErr := h.legacy.Unlock(ctx)
	queueErr := h.queue.Unlock(ctx)
	if !h.stopped {
		h.stopped = true
		close(h.stop)
		h.wg.Wait()
		h.l.life.Untrack(h)
	}
	return errors.Join(legacyErr, queueErr)
}
