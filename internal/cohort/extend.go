package cohort

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
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

// lookLead is how many grants of a block, its last included, follow the
// sending of the block's look ahead: the look is sent as the hold is
// handed for its local grant Bound−lookLead+1 (the first, for a Bound
// below lookLead), so that the look and the draw after it are usually
// done when the hold reaches the bound.
const lookLead = 3

// ahead is a store hold's look at the store, and the draw after it, sent
// ahead of the bound by a goroutine of its own (lookAhead); the waiter
// handed the hold at the bound waits for it and extends on its answer.
type ahead struct {
	done  chan struct{} // closed when the look (and draw) returned
	clear bool          // nobody else waited, and the draw (if any) was kept
	first int64         // the drawn block's first token (0: no fencing)
}

// aheadAt is the count of local handoffs at which a block's look ahead is
// sent (lookLead).
func (c *Algorithm) aheadAt() int { return max(1, c.o.Bound-lookLead+1) }

// handedLocked counts one more local grant of h and, when it is the
// block's grant at aheadAt and the hold may be extended at its bound (a
// Watcher below, a claim that saw nobody else waiting), sends the block's
// look ahead; the caller holds c.mu.
func (c *Algorithm) handedLocked(h *hold) {
	h.handoffs++
	if h.handoffs != c.aheadAt() || c.watcher == nil || h.crowded || c.knobs.ExtendUnlooked {
		return
	}
	look := !h.looked || !c.knobs.ExtendOnFirstLook // planted: later blocks reuse the first look's answer
	h.looked = true
	a := &ahead{done: make(chan struct{})}
	h.ahead = a
	c.spawnLook(h, a, look)
}

// spawnLook starts the goroutine that fills a for h: a look at the store
// (when look is set) and, when it saw nobody and h carries tokens, the
// draw of a fresh block of Bound+1. Close ends it.
func (c *Algorithm) spawnLook(h *hold, a *ahead, look bool) {
	spec, fenced := h.spec, h.spec.Token != 0
	c.looking.Add(1)
	lifecycle.Go(c.o.Clock, func() {
		defer c.looking.Done()
		defer close(a.done)
		ctx, cancel := context.WithCancel(c.closing)
		defer cancel()
		if look {
			waiting, err := c.watcher.Waiting(ctx, spec)
			if err != nil || waiting {
				return
			}
		}
		if fenced {
			first, err := c.draw(ctx, spec)
			if err != nil {
				return
			}
			a.first = first
		}
		a.clear = true
	})
}

// draw reserves a fresh block of Bound+1 tokens for spec's hold through
// the Extender.
func (c *Algorithm) draw(ctx context.Context, spec held.Spec) (int64, error) {
	if c.extender == nil {
		return 0, errNoExtender
	}
	n := c.o.Bound + 1
	if c.knobs.ExtendUnreserved {
		n = 1 // planted: the first token drawn, the Bound after it granted unreserved
	}
	return c.extender.Extend(ctx, spec, n)
}

// extend decides, for a waiter handed h at the bound (hold.due), whether
// h goes on in memory. It goes on when no request of another access of
// this process waits behind h in the inner algorithm, the block's look
// ahead (handedLocked) saw no waiter of another owner in the store and,
// when h carries tokens, reserved a fresh block of Bound+1 for h, and h's
// lease is open; the waiter waits for the look ahead if it is still in
// flight. h's count of handoffs then starts again, and the caller grants
// the block's first token. It reports false when h must be released in
// the store instead: a waiter seen, a look or draw that failed, the lease
// closed, ctx ended, or no Watcher (or Extender, for a fenced hold) below.
// A hold with no look ahead (the planted ExtendUnlooked) draws here.
func (c *Algorithm) extend(ctx context.Context, h *hold) bool {
	h.due = false
	a := h.ahead
	h.ahead = nil
	if c.watcher == nil || c.passingThrough(h.ln.id) && !c.knobs.ExtendUnlooked {
		return false
	}
	first := int64(0)
	switch {
	case a != nil:
		select {
		case <-a.done:
		case <-ctx.Done():
			lifecycle.Resumed(ctx, c.o.Clock)
			return false
		}
		lifecycle.Resumed(ctx, c.o.Clock)
		if !a.clear {
			return false
		}
		first = a.first
	case !c.knobs.ExtendUnlooked:
		return false
	case h.token != 0: // planted ExtendUnlooked: no look, the draw here
		var err error
		if first, err = c.draw(ctx, h.spec); err != nil {
			return false
		}
	}
	if h.spec.Loss.Fired() {
		return false
	}
	if h.token != 0 {
		h.token, h.last = first-1, first+int64(c.o.Bound) // grantLocal takes first
	}
	h.handoffs, h.crowded = 0, false
	return true
}
