package cohort

import (
	"context"
	"time"

	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// Watcher is what an inner algorithm offers for retained ownership
// (Options.Retain): a look at the store for a waiter of another owner.
type Watcher interface {
	// Waiting reads the store once and reports whether an acquisition
	// other than s's owner waits for s.ID there. An error means the
	// algorithm cannot tell (a store error, a mode without a line); the
	// retained hold is then released.
	Waiting(ctx context.Context, s held.Spec) (bool, error)
}

// retention is a store hold kept by the layer with no holder.
type retention struct {
	end  context.CancelFunc // ends the wait: the hold is claimed or released
	done chan struct{}      // closed when the retention goroutine returns
	// looking is set while a look at the store is due or in flight: from
	// retain until the first look returns, and during each later one;
	// guarded by the layer's mu.
	looking bool
}

// retain keeps h, whose last holder unlocked with nobody in ln, as ln's
// retained hold, and starts the goroutine that releases it in the store
// when the window ends, the lease is lost, a remote waiter is seen, or
// release asks; the caller holds c.mu.
func (c *Algorithm) retain(ln *line, h *hold) {
	ctx, end := context.WithCancel(c.closing)
	h.spec.Loss.OnFire(end)
	r := &retention{end: end, done: make(chan struct{}), looking: true} // its first look is due at once
	ln.retained, h.retention = h, r
	c.retaining.Add(1)
	lifecycle.Go(c.o.Clock, func() {
		defer c.retaining.Done()
		defer close(r.done)
		seen := c.watch(ctx, ln, h, r)
		c.mu.Lock()
		mine := seen || ln.retained == h && h.retention == r // not claimed by a local Lock meanwhile
		if mine && !seen {
			ln.retained = nil
			c.leaveLocked(ln)
		}
		c.mu.Unlock()
		end()
		if mine {
			h.stop()
			_, _ = h.release(context.Background(), c.o.Clock) // what a failed delete leaves expires after the TTL
		}
	})
}

// watch returns when h's retention must end: ctx ended (claimed, released
// on request, or the lease lost), the window passed, or a look at the
// store found a waiter of another owner or failed. It looks at once and
// then every Options.WatchEvery. It reports whether a look ended it, in
// which case it has taken h out of ln already (look).
func (c *Algorithm) watch(ctx context.Context, ln *line, h *hold, r *retention) bool {
	deadline := c.o.Clock.Elapsed() + c.o.Retain.Microseconds()
	if c.knobs.RetainIgnoresWaiters {
		c.mu.Lock()
		r.looking = false // no look due after all
		claimed := ln.retained != h || h.retention != r
		c.mu.Unlock()
		if claimed {
			return false
		}
		<-ctx.Done() // planted: no window, no look at the store
		lifecycle.Resumed(ctx, c.o.Clock)
		return false
	}
	for {
		if seen, done := c.look(ctx, ln, h, r); done {
			return seen
		}
		left := deadline - c.o.Clock.Elapsed()
		if left <= 0 {
			return false
		}
		if c.o.Clock.Sleep(ctx, min(c.o.WatchEvery, microseconds(left))) != nil {
			return false
		}
		if c.o.Clock.Elapsed() >= deadline {
			return false
		}
	}
}

// look reads the store once for a waiter of another owner and reports
// whether the retention is over (done) and whether this look ended it
// (seen: a waiter, or a failed read), in which case h is taken out of ln
// under the layer's mu. A re-lock that claims h while the look is in flight
// does not end it: the look's outcome then applies to h itself (a waiter
// seen marks h to yield, so that its next Unlock releases it in the store)
// and the retention is over.
func (c *Algorithm) look(ctx context.Context, ln *line, h *hold, r *retention) (seen, done bool) {
	c.mu.Lock()
	// The first look is due from retain on: a re-lock that claims h first
	// does not call it off. A later one is not sent once h was claimed.
	if ctx.Err() != nil || !r.looking && (ln.retained != h || h.retention != r) {
		c.mu.Unlock()
		return false, true
	}
	r.looking = true
	c.mu.Unlock()
	waiting, err := c.watcher.Waiting(ctx, h.spec)
	c.mu.Lock()
	defer c.mu.Unlock()
	r.looking = false
	switch {
	case ln.retained != h || h.retention != r: // a re-lock claimed h meanwhile
		if err == nil && waiting && !c.knobs.DropOvertakenLook { // planted: the outcome dropped, as if never sent
			h.yield = true
		}
		r.end()
		return false, true
	case ctx.Err() != nil:
		return false, true
	case err != nil || waiting:
		ln.retained = nil
		c.leaveLocked(ln)
		return true, true
	}
	return false, false
}

// claimRetained takes id's retained hold for an exclusive Take, if there
// is one; the caller holds c.mu. The hold counts one more local grant.
func (c *Algorithm) claimRetained(ln *line) *hold {
	h := ln.retained
	if h == nil {
		return nil
	}
	ln.retained = nil
	c.handedLocked(h, false)
	if !h.retention.looking {
		h.retention.end() // a look in flight ends the retention itself (look)
	}
	return h
}

// dropRetained releases id's retained hold, if any, and waits until its
// cells are deleted: for a request that passes through to the inner
// algorithm, which must not wait for the window.
func (c *Algorithm) dropRetained(ctx context.Context, id string) {
	c.mu.Lock()
	var r *retention
	if ln := c.lines[id]; ln != nil && ln.retained != nil {
		r = ln.retained.retention
	}
	c.mu.Unlock()
	if r != nil {
		r.end()
		<-r.done
		lifecycle.Resumed(ctx, c.o.Clock)
	}
}

// dropAll releases every retained hold and waits for the releases (Close).
func (c *Algorithm) dropAll(ctx context.Context) {
	c.mu.Lock()
	var rs []*retention
	for _, ln := range c.lines {
		if ln.retained != nil {
			rs = append(rs, ln.retained.retention)
		}
	}
	looking := c.lookingNow
	c.mu.Unlock()
	for _, r := range rs {
		r.end()
	}
	c.closeLooks()
	c.retaining.Wait()
	c.looking.Wait()
	if len(rs) > 0 || looking > 0 {
		lifecycle.Resumed(ctx, c.o.Clock)
	}
}

func microseconds(n int64) time.Duration { return time.Duration(n) * time.Microsecond }
