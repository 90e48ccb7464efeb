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

// LookLead is how many grants of a block, its last included, follow the
// sending of the block's look ahead: the look is sent as the hold is
// handed to a waiter for its local grant Bound−LookLead+1 (the first, for
// a Bound below LookLead), so that the look and the draw after it are
// usually done when the hold reaches the bound.
const LookLead = 3

// ahead is a store hold's look at the store, and the draw after it, sent
// ahead of the bound by a goroutine of its own (spawnLook); the waiter
// handed the hold at the bound waits for it and extends on its answer.
type ahead struct {
	done   chan struct{}      // closed when the look (and draw) returned
	cancel context.CancelFunc // ends the look (and draw) early: the hold ended first (hold.stop)
	clear  bool               // nobody else waited, and the draw (if any) was kept
	first  int64              // the drawn block's first token (0: no fencing)
}

// aheadAt is the count of local handoffs at which a block's look ahead is
// sent (LookLead).
func (c *Algorithm) aheadAt() int { return max(1, c.o.Bound-LookLead+1) }

// handedLocked counts one more local grant of h and, when it is the
// block's grant at aheadAt, made by a handoff to a waiter (toWaiter; a
// re-lock that claims a retained hold has nobody in line, and a hold with
// nobody in line at its bound is released, so a look sent then would be
// wasted), and the hold may be extended at its bound (a Watcher below, a
// claim that saw nobody else waiting), sends the block's look ahead; the
// caller holds c.mu.
func (c *Algorithm) handedLocked(h *hold, toWaiter bool) {
	h.handoffs++
	if !toWaiter || h.handoffs != c.aheadAt() || c.watcher == nil || h.crowded || c.knobs.ExtendUnlooked {
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
// draw of a fresh block of Bound+1. Close ends it, and so does the end of
// h's hold before its bound (a.cancel).
func (c *Algorithm) spawnLook(h *hold, a *ahead, look bool) {
	spec, fenced := h.spec, h.spec.Token != 0
	c.looking.Add(1)
	c.lookingNow++
	ctx, cancel := context.WithCancel(c.closing)
	a.cancel = cancel
	lifecycle.Go(c.o.Clock, func() {
		defer c.looking.Done()
		defer func() {
			c.mu.Lock()
			c.lookingNow--
			c.mu.Unlock()
		}()
		defer close(a.done)
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
// this process waits behind h in the inner algorithm, the block's look at
// the store saw no waiter of another owner and, when h carries tokens, a
// fresh block of Bound+1 was reserved for h, and h's lease is open. The
// look is the block's look ahead (handedLocked), waited for if it is still
// in flight, or, for a block that sent none (its grant at aheadAt was a
// re-lock of a retained hold), one sent now, with the draw after it. h's
// count of handoffs then starts again, and the caller grants the block's
// first token. It reports false when h must be released in the store
// instead: a waiter seen, a look or draw that failed, the lease closed,
// ctx ended, or no Watcher (or Extender, for a fenced hold) below.
func (c *Algorithm) extend(ctx context.Context, h *hold) bool {
	h.due = false
	a := h.ahead
	h.ahead = nil
	if c.watcher == nil || c.passingThrough(h.ln.id) && !c.knobs.ExtendUnlooked {
		return false
	}
	first, ok := int64(0), false
	if a != nil {
		first, ok = c.awaitLook(ctx, a)
	} else {
		first, ok = c.lookNow(ctx, h)
	}
	if !ok || h.spec.Loss.Fired() {
		return false
	}
	if h.token != 0 {
		h.token, h.last = first-1, first+int64(c.o.Bound) // grantLocal takes first
	}
	h.handoffs, h.crowded = 0, false
	return true
}

// awaitLook waits for a block's look ahead and returns its answer: the
// drawn block's first token (0: no fencing) and whether nobody else
// waited and the draw, if any, was kept. ctx ending first is a no.
func (c *Algorithm) awaitLook(ctx context.Context, a *ahead) (int64, bool) {
	select {
	case <-a.done:
	case <-ctx.Done():
		lifecycle.Resumed(ctx, c.o.Clock)
		return 0, false
	}
	lifecycle.Resumed(ctx, c.o.Clock)
	return a.first, a.clear
}

// lookNow is awaitLook's answer for a block that sent no look ahead, found
// on the caller's goroutine: a look at the store (none with the planted
// ExtendUnlooked) and, when it saw nobody and h carries tokens, the draw.
// A look sent now is later than a look ahead would have been, so Theorem
// 4b's bound holds of it as it is.
func (c *Algorithm) lookNow(ctx context.Context, h *hold) (int64, bool) {
	if !c.knobs.ExtendUnlooked {
		waiting, err := c.watcher.Waiting(ctx, h.spec)
		if err != nil || waiting {
			return 0, false
		}
	}
	if h.token == 0 {
		return 0, true
	}
	first, err := c.draw(ctx, h.spec)
	return first, err == nil
}
