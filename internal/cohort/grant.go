package cohort

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep/internal/held"
)

// grant is the one part of a lock this layer returns: one holder's turn of
// a store hold. Its Stop hands the hold to the next in line or stops it;
// its Release deletes the hold's cells unless it was handed on.
type grant struct {
	c      *Algorithm
	h      *hold
	handed atomic.Bool  // Stop handed the hold to the next in line
	state  atomic.Int32 // granted until the first of Stop (stopped) and Share (shared; share.go)
}

// A grant's states: Stop and Share each move it out of granted, and only
// the first of them does.
const (
	granted int32 = iota
	stopped
	shared
)

// grant returns the spec of a new holder of h with token and since: its own
// loss signal, which the store hold's fires and bounds until the holder
// hands it on, so that a loss of the store hold reaches whoever holds it.
func (c *Algorithm) grant(h *hold, token, since int64) held.Spec {
	g := &grant{c: c, h: h}
	loss := held.NewLoss()
	under := h.spec.Loss
	loss.Watch(func() time.Duration {
		if g.handed.Load() {
			return held.NoBound // the next holder's now; this one has unlocked
		}
		return under.Remaining()
	})
	under.OnFire(func() {
		if !g.handed.Load() {
			loss.Fire()
		}
	})
	s := h.spec
	return held.Spec{ID: s.ID, Owner: s.Owner, LegacyOwner: s.LegacyOwner, Mode: s.Mode, Token: token,
		Parts: []held.Part{g}, Loss: loss, Since: since}
}

// Stop hands the store hold to the next in line (held.Part: called once,
// at the first Unlock), reporting no loss; or, with nobody to hand it to,
// the bound reached or the lease lost, stops its renewals and reports
// whether it was lost. A shared grant's hold is never handed on nor
// retained: its renewals stop, the next in line (if any) takes the id from
// the store, and Release leaves the shared lock as a direct holder does.
func (g *grant) Stop() bool {
	if g.state.CompareAndSwap(granted, stopped) || g.c.knobs.HandOnShared { // planted HandOnShared: shared or not
		if g.c.offer(g.h, &g.handed) {
			return false
		}
		return g.h.stop()
	}
	g.c.leave(g.h.ln)
	return g.h.stop()
}

// Release deletes the store hold's cells, unless Stop handed it on.
func (g *grant) Release(ctx context.Context) (bool, error) {
	if g.handed.Load() {
		return false, nil
	}
	return g.h.release(ctx, g.c.o.Clock)
}

// Expired reports whether a lease of the store hold has expired, while
// this holder has it.
func (g *grant) Expired() bool {
	if g.handed.Load() {
		return false
	}
	exp := false
	for _, p := range g.h.spec.Parts {
		if p.Expired() {
			exp = true
		}
	}
	return exp
}

// HandedOn reports whether this holder's Unlock handed the store hold to
// another local holder instead of releasing it: the model checks read it
// (a handed-on owner's cells are rightly renewed after that Unlock).
func (g *grant) HandedOn() bool { return g.handed.Load() }
