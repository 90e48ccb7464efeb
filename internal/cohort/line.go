package cohort

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"

	"github.com/lockstep-go/lockstep"

	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// line is one id's local exclusive acquisitions: the one that has the
// turn (taking the id from the inner algorithm, or holding it, or being
// handed it) and the waiters behind it, first come first served. It lives
// while the turn is had; the last to give the turn up deletes it.
type line struct {
	id       string
	waiters  []*waiter
	retained *hold // a store hold kept with no holder (Options.Retain)
	// mode is the mode of its latest store acquisition, reported for a
	// Try acquisition the line refuses (Take): the mode of the hold, or of
	// the one before it while a store acquisition is under way.
	mode lockstep.Mode
}

// waiter is one exclusive Take waiting in a line.
type waiter struct {
	ready chan struct{} // closed when the turn is given
	h     *hold         // the store hold handed with the turn; nil: take it from the store
}

// hold is one store acquisition of the inner algorithm and what it passed
// through: the handoffs since it was taken and the latest token granted,
// of the block the acquisition reserved.
type hold struct {
	ln       *line
	spec     held.Spec // the inner algorithm's
	handoffs int       // local handoffs since the store acquisition
	token    int64     // the token of its latest grant (0: no fencing)
	last     int64     // the last token of its block
	released bool      // every inner part released
	// crowded is set when the store acquisition's claim saw another
	// acquisition waiting in the store (held.Spec.Crowded), until an
	// extension: a look would see it, so none is sent and the hold is
	// released at its bound.
	crowded bool
	// due is set when the hold is handed at the bound: the waiter handed it
	// extends it before its grant on the answer of the block's look at the
	// store, or releases it (extend.go).
	due bool
	// ahead is the current block's look ahead, from its grant at aheadAt
	// to the bound (extend.go); looked is set once the hold sent one.
	ahead  *ahead
	looked bool
	// yield is set when a look at the store, overtaken by a re-lock, saw a
	// waiter of another owner: the hold is neither handed on nor retained
	// again, but released at its holder's Unlock (retain.go, look).
	yield bool
	// retention is its latest retention (retain.go), while or after the
	// layer kept it with no holder.
	retention *retention
}

// spare reports whether h's block has a token left for another grant (or
// h carries none).
func (h *hold) spare() bool { return h.token == 0 || h.token < h.last }

// await waits for w's turn: the hold handed with it, or nil for the
// store's. When ctx ends first it gives up its place; a turn given
// meanwhile is passed on, and it returns ctx's error.
func (c *Algorithm) await(ctx context.Context, ln *line, w *waiter) (*hold, error) {
	select {
	case <-w.ready:
		lifecycle.Resumed(ctx, c.o.Clock)
		return w.h, nil
	case <-ctx.Done():
		lifecycle.Resumed(ctx, c.o.Clock)
	}
	c.giveUp(ctx, ln, w)
	return nil, ctx.Err()
}

// giveUp takes w out of ln, whose ctx ended: a turn given meanwhile is
// passed on, with the hold handed with it if any.
func (c *Algorithm) giveUp(ctx context.Context, ln *line, w *waiter) {
	c.mu.Lock()
	select {
	case <-w.ready: // given the turn while giving up: pass it on
		c.mu.Unlock()
		if w.h != nil {
			c.pass(ctx, w.h)
		} else {
			c.leave(ln)
		}
	default:
		ln.waiters = slices.DeleteFunc(ln.waiters, func(x *waiter) bool { return x == w })
		c.mu.Unlock()
	}
}

// offer hands h to the next in line if there is one, h's store lease is
// open and no overtaken look made h yield (retain.go), setting handed (if
// not nil) first; it reports whether it did. When the bound or h's token
// block (Bound+1 tokens: the two end together) is used up, h is handed
// due, for the waiter to extend it or release it (extend.go), if the
// inner algorithm can look at the store and h's claim saw nobody else
// waiting there (hold.crowded). Otherwise it gives the line's
// turn to the next in line, who takes the id from the store, or ends the
// line: the caller then releases h in the store.
func (c *Algorithm) offer(h *hold, handed *atomic.Bool) bool {
	lost := h.spec.Loss.Fired() // outside mu: it may run loss callbacks
	c.mu.Lock()
	defer c.mu.Unlock()
	ln := h.ln
	within := h.handoffs < c.o.Bound && h.spare() || c.knobs.Unbounded
	if len(ln.waiters) > 0 && !lost && !h.yield && (within || c.watcher != nil && (!h.crowded || c.knobs.ExtendUnlooked)) {
		w := ln.waiters[0]
		ln.waiters = ln.waiters[1:]
		h.due = !within
		if within {
			c.handedLocked(h, true)
		}
		if handed != nil {
			handed.Store(true)
		}
		w.h = h
		close(w.ready)
		return true
	}
	if handed != nil && len(ln.waiters) == 0 && !lost && !h.yield && c.o.Retain > 0 && h.handoffs < c.o.Bound && h.spare() {
		handed.Store(true) // handed to the layer, which renews it for up to Retain
		c.retain(ln, h)
		return true
	}
	c.leaveLocked(ln)
	return false
}

// pass gives h up outside an Unlock (a waiter cancelled as it was handed
// h): to the next in line, or released in the
// store, bounded by ctx's values but not its end.
func (c *Algorithm) pass(ctx context.Context, h *hold) {
	if c.offer(h, nil) {
		return
	}
	h.stop()
	_, _ = h.release(context.WithoutCancel(ctx), c.o.Clock) // what a failed delete leaves expires after the TTL
}

// leave gives the line's turn up without a hold.
func (c *Algorithm) leave(ln *line) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.leaveLocked(ln)
}

func (c *Algorithm) leaveLocked(ln *line) {
	if len(ln.waiters) == 0 {
		delete(c.lines, ln.id)
		return
	}
	w := ln.waiters[0]
	ln.waiters = ln.waiters[1:]
	w.h = nil
	close(w.ready)
}

// stop ends the hold's look ahead, if one is in flight, and the inner
// parts' renewals, and runs the inner OnStop; it reports whether a lease
// had been lost.
func (h *hold) stop() bool {
	if a := h.ahead; a != nil {
		a.cancel() // its answer would be for a bound the hold never reaches
		h.ahead = nil
	}
	lost := false
	for _, p := range h.spec.Parts {
		if p.Stop() {
			lost = true
		}
	}
	if h.spec.OnStop != nil {
		h.spec.OnStop()
	}
	return lost || h.spec.Loss.Fired()
}

// release deletes the inner parts' cells (held.ReleaseParts, as held.Lock
// does); a part whose delete failed is retried by the next call, the others
// send nothing.
func (h *hold) release(ctx context.Context, clk lockstep.Clock) (bool, error) {
	sent, errs := held.ReleaseParts(ctx, clk, h.spec.Parts, h.spec.ParallelRelease)
	err := errors.Join(errs...)
	if err == nil && !h.released {
		h.released = true
		if h.spec.OnReleased != nil {
			h.spec.OnReleased()
		}
	}
	return slices.Contains(sent, true), err
}
