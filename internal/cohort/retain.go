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
}

// retain keeps h, whose last holder unlocked with nobody in ln, as ln's
// retained hold, and starts the goroutine that releases it in the store
// when the window ends, the lease is lost, a remote waiter is seen, or
// release asks; the caller holds c.mu.
func (c *Algorithm) retain(ln *line, h *hold) {
	ctx, end := context.WithCancel(context.Background())
	h.spec.Loss.OnFire(end)
	r := &retention{end: end, done: make(chan struct{})}
	ln.retained, h.retention = h, r
	c.retaining.Add(1)
	lifecycle.Go(c.o.Clock, func() {
		defer c.retaining.Done()
		defer close(r.done)
		c.watch(ctx, h)
		c.mu.Lock()
		mine := ln.retained == h && h.retention == r // not claimed by a local Lock meanwhile
		if mine {
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
// then every Options.WatchEvery.
func (c *Algorithm) watch(ctx context.Context, h *hold) {
	deadline := c.o.Clock.Elapsed() + c.o.Retain.Microseconds()
	if c.knobs.RetainIgnoresWaiters {
		<-ctx.Done() // planted: no window, no look at the store
		lifecycle.Resumed(ctx, c.o.Clock)
		return
	}
	for {
		waiting, err := c.watcher.Waiting(ctx, h.spec)
		if err != nil || waiting || ctx.Err() != nil {
			return
		}
		left := deadline - c.o.Clock.Elapsed()
		if left <= 0 {
			return
		}
		if c.o.Clock.Sleep(ctx, min(c.o.WatchEvery, microseconds(left))) != nil {
			return
		}
		if c.o.Clock.Elapsed() >= deadline {
			return
		}
	}
}

// claimRetained takes id's retained hold for an exclusive Take, if there
// is one; the caller holds c.mu. The hold counts one more local grant.
func (c *Algorithm) claimRetained(ln *line) *hold {
	h := ln.retained
	if h == nil {
		return nil
	}
	ln.retained = nil
	h.handoffs++
	h.retention.end()
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
	c.mu.Unlock()
	for _, r := range rs {
		r.end()
	}
	c.retaining.Wait()
	if len(rs) > 0 {
		lifecycle.Resumed(ctx, c.o.Clock)
	}
}

func microseconds(n int64) time.Duration { return time.Duration(n) * time.Microsecond }
