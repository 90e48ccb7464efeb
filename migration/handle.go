package migration

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/serial"
)

// handle is a lock taken through a migration.Locker: the algorithm's lock,
// plus the census bookkeeping. Its Lost closes when the algorithm's lease is
// lost or when the census heartbeat epoch it was taken in ends (the
// Controller might no longer see this process). Safe for concurrent use.
type handle struct {
	inner    lockstep.Lock
	l        *Locker
	t        ticket // the census epoch the lock was taken in
	lost     chan struct{}
	lostOnce sync.Once
	stop     chan struct{}
	wg       sync.WaitGroup

	// unlockMu is held for a whole Unlock, so concurrent calls serialize.
	unlockMu serial.Mutex
	stopped  bool // the loss watcher ended and the census was told: an Unlock ran
}

var (
	_ lockstep.Lock   = (*handle)(nil)
	_ lockstep.Fenced = (*handle)(nil)
)

// track wraps inner, registers it for Close, and starts the goroutine that
// merges the two loss signals; Unlock ends it.
func (l *Locker) track(inner lockstep.Lock, t ticket) *handle {
	h := &handle{inner: inner, l: l, t: t, lost: make(chan struct{}), stop: make(chan struct{})}
	l.mu.Lock()
	l.held[h] = struct{}{}
	l.mu.Unlock()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		select {
		case <-inner.Lost():
		case <-t.end:
		case <-h.stop:
			return
		}
		h.markLost()
	}()
	return h
}

func (h *handle) markLost() { h.lostOnce.Do(func() { close(h.lost) }) }

func (h *handle) ID() string          { return h.inner.ID() }
func (h *handle) Owner() string       { return h.inner.Owner() }
func (h *handle) Mode() lockstep.Mode { return h.inner.Mode() }

// Token is the algorithm's fencing token (Options.Fencing), or 0 without
// fencing.
func (h *handle) Token() int64 {
	if f, ok := h.inner.(lockstep.Fenced); ok {
		return f.Token()
	}
	return 0
}

// Lost is closed once the algorithm's lease is lost or the census epoch the
// lock was taken in ends. It checks both deadlines itself (the algorithm's
// Lost checks its own; the census one is a lease window after the last
// successful heartbeat), so a caller looking at Lost before working never works past
// either, even before the goroutines watching them have run.
func (h *handle) Lost() <-chan struct{} {
	select {
	case <-h.inner.Lost():
		h.markLost()
	case <-h.t.end:
		h.markLost()
	default:
		if ok, _ := h.l.hb.trusted(h.t, false); !ok {
			h.markLost()
		}
	}
	return h.lost
}

// Unlock releases the algorithm's lock (see lockstep.Lock for the contract
// it follows), then stops counting it in the census. After a loss of either
// kind the first call returns an error wrapping lockstep.ErrLost. ctx bounds
// the release's store requests. If they fail, Unlock returns the error and a
// later call retries through the algorithm's lock, which retries only what is
// left; the census stops counting the lock at the first call either way (its
// cells, until deleted or expired, still exclude every mode that could
// contend for them), and Close retries through the algorithms' Close.
func (h *handle) Unlock(ctx context.Context) error {
	if err := h.unlockMu.Lock(ctx); err != nil {
		return fmt.Errorf("migration: unlock %q: waiting for another Unlock: %w", h.ID(), err)
	}
	defer h.unlockMu.Unlock()
	err := h.inner.Unlock(ctx)
	if h.stopped {
		return err
	}
	h.stopped = true
	close(h.stop)
	h.wg.Wait()
	select {
	case <-h.lost:
		if !errors.Is(err, lockstep.ErrLost) { // lost through the census, not the algorithm's lease
			err = errors.Join(fmt.Errorf("migration: unlock %q: census heartbeat went stale while held: %w", h.ID(), lockstep.ErrLost), err)
		}
	default:
	}
	h.l.mu.Lock()
	delete(h.l.held, h)
	h.l.mu.Unlock()
	h.l.hb.released(h.inner.Mode())
	return err
}
