package migration

import (
	"context"
	"fmt"
	"sync"

	"github.com/lockstep-go/lockstep"
)

// handle is a lock taken through a migration.Locker: the algorithm's lock,
// plus the census bookkeeping. Its Lost closes when the algorithm's lease is
// lost or when the census heartbeat epoch it was taken in ends (the
// Controller might no longer see this process). Safe for concurrent use.
type handle struct {
	inner lockstep.Lock
	l     *Locker
	lost  chan struct{}
	stop  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
	err   error
}

var _ lockstep.Lock = (*handle)(nil)

// track wraps inner, registers it for Close, and starts the goroutine that
// merges the two loss signals; Unlock ends it.
func (l *Locker) track(inner lockstep.Lock, t ticket) *handle {
	h := &handle{inner: inner, l: l, lost: make(chan struct{}), stop: make(chan struct{})}
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
		close(h.lost)
	}()
	return h
}

func (h *handle) ID() string            { return h.inner.ID() }
func (h *handle) Owner() string         { return h.inner.Owner() }
func (h *handle) Mode() lockstep.Mode   { return h.inner.Mode() }
func (h *handle) Lost() <-chan struct{} { return h.lost }

// Unlock releases the algorithm's lock (see lockstep.Lock), then stops
// counting it in the census. After a loss of either kind it returns an error
// wrapping lockstep.ErrLost. Idempotent: later calls return what the first
// returned. ctx bounds the release's store requests; cells it cannot delete
// expire after their TTL.
func (h *handle) Unlock(ctx context.Context) error {
	h.once.Do(func() {
		h.err = h.inner.Unlock(ctx)
		close(h.stop)
		h.wg.Wait()
		select {
		case <-h.lost:
			if h.err == nil { // lost through the census, not the algorithm's lease
				h.err = fmt.Errorf("migration: unlock %q: census heartbeat went stale while held: %w", h.ID(), lockstep.ErrLost)
			}
		default:
		}
		h.l.mu.Lock()
		delete(h.l.held, h)
		h.l.mu.Unlock()
		h.l.hb.released(h.inner.Mode())
	})
	return h.err
}
