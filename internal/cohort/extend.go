package cohort

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// Extender is what an inner algorithm offers for extending a store hold
// past the bound with fencing on (extend): a fresh block of tokens for a
// hold it granted and still holds.
type Extender interface {
	// Extend draws n consecutive fencing tokens for s's store hold
	// (clock.Global.Reserve: the global cell is written with the block's
	// last) and returns the first. It keeps them only if s's lease was
	// open when the draw returned, as a store acquisition keeps its token
	// (internal/fencing); otherwise, or when the draw failed or the
	// algorithm cannot extend s (a mode without a fenced line), it returns
	// an error and the layer releases the hold.
	Extend(ctx context.Context, s held.Spec, n int) (int64, error)
}

// extend decides, for a waiter handed h at the bound (hold.due), whether
// h goes on in memory: it looks at the store for a waiter of another
// owner (Watcher.Waiting) and, when none waits, no request of another
// access of this process waits behind h in the inner algorithm, and h's
// lease is open, reserves a fresh block of Bound+1 tokens for h (when h
// carries tokens) and starts h's count of handoffs again. The caller then
// grants the block's first token. It reports false when h must be
// released in the store instead: a waiter seen, a look or draw that
// failed, the lease closed, or no Watcher (or Extender, for a fenced
// hold) below.
func (c *Algorithm) extend(ctx context.Context, h *hold) bool {
	h.due = false
	if c.watcher == nil {
		return false
	}
	if !c.knobs.ExtendUnlooked { // planted: extends with no look
		if c.passingThrough(h.ln.id) {
			return false
		}
		waiting, err := c.watcher.Waiting(ctx, h.spec)
		if err != nil || waiting {
			return false
		}
	}
	if h.token != 0 {
		switch {
		case c.extender == nil:
			return false
		default:
			n := c.o.Bound + 1
			if c.knobs.ExtendUnreserved {
				n = 1 // planted: the first token drawn, the Bound after it granted unreserved
			}
			first, err := c.extender.Extend(ctx, h.spec, n)
			if err != nil {
				return false
			}
			h.token, h.last = first-1, first+int64(c.o.Bound) // grantLocal takes first
		}
	}
	if h.spec.Loss.Fired() {
		return false
	}
	h.handoffs, h.crowded = 0, false
	return true
}

// passingThrough reports whether a request of another access (or one that
// otherwise passes through to the inner algorithm) is in progress for id:
// it waits in the inner algorithm's in-process turns, where a look at the
// store does not see it.
func (c *Algorithm) passingThrough(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.passing[id] > 0
}

// passThrough takes a through the inner algorithm, counted for
// passingThrough while it is in progress.
func (c *Algorithm) passThrough(ctx context.Context, a *manager.Acquisition) (held.Spec, error) {
	c.mu.Lock()
	c.passing[a.ID]++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.passing[a.ID]--; c.passing[a.ID] == 0 {
			delete(c.passing, a.ID)
		}
		c.mu.Unlock()
	}()
	return c.inner.Take(ctx, a)
}
