package propertytests

import (
	"context"
	"errors"
	"time"

	"github.com/lockstep-go/lockstep"
)

// The correct lock user each process runs unless its kind brings its own
// (kind.user), and what it records for the checker as it waits, acquires,
// works and releases.

// workAndRelease is a correct holder's part: work workSteps steps of l,
// checking Lost() before each, then release (releasing records it first),
// retrying a failed release once, a poll later, as a careful user would
// (lock.go). It reports false if the process crashed while holding.
func (h *harness) workAndRelease(ctx context.Context, pr *proc, l lockstep.Lock, releasing func()) bool {
	clk := pr.sp.Clock()
	for range h.workSteps() {
		select {
		case <-l.Lost():
		default:
			h.work(pr, l)
			if clk.Sleep(ctx, h.workStep()) != nil {
				return false
			}
			continue
		}
		break
	}
	releasing()
	err := l.Unlock(context.WithoutCancel(ctx))
	if err != nil && !errors.Is(err, lockstep.ErrLost) && clk.Sleep(ctx, poll) == nil {
		_ = l.Unlock(context.WithoutCancel(ctx))
	}
	h.releaseDone(l)
	return true
}

// workStep is how long one step of work lasts.
func (h *harness) workStep() time.Duration {
	if h.v.stepOfWork > 0 {
		return h.v.stepOfWork
	}
	return workStep
}

// workSteps is how many steps of work a holding does.
func (h *harness) workSteps() int {
	if h.v.longHolds > 0 {
		return h.v.longHolds
	}
	return workSteps
}

// user is a correct lock user: take the lock, check Lost() before each step
// of work, release, think, repeat.
func (h *harness) user(ctx context.Context, pr *proc) {
	h.userPausing(ctx, pr, func(int) time.Duration { return think })
}

// userPausing is user pausing pause(n), not think, after its n-th release
// (n from 1).
func (h *harness) userPausing(ctx context.Context, pr *proc, pause func(n int) time.Duration) {
	clk := pr.sp.Clock()
	for n := 1; ctx.Err() == nil; n++ {
		h.waiting(pr)
		l, err := pr.locker.Lock(ctx, lockID)
		if err != nil {
			h.stopWaiting(pr)
			if clk.Sleep(ctx, think) != nil {
				return
			}
			continue
		}
		h.acquired(pr, l)
		if !h.workAndRelease(ctx, pr, l, func() { h.releasing(pr) }) {
			return // crashed while holding
		}
		if clk.Sleep(ctx, pause(n)) != nil {
			return
		}
	}
}

func (h *harness) waiting(pr *proc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	pr.waiting, pr.waitStart, pr.quietWait, pr.bypass = true, h.s.Now(), h.quiet, 0
}

func (h *harness) stopWaiting(pr *proc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	pr.waiting = false
}

func (h *harness) acquired(pr *proc, l lockstep.Lock) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.event("%s acquired as %s", pr.sp.Name, l.Owner())
	if h.quiet && pr.waiting {
		h.maxWait = max(h.maxWait, h.elapsed(max(pr.waitStart, h.quietStart)))
	}
	pr.waiting, pr.holding = false, l
	pr.acquired++
	h.holdings++
	pr.holdingNo = h.holdings
	h.checkToken(pr, l)
	if h.co != nil {
		h.checkGrantOrder(pr, l)
	}
	pr.worked = 0
	h.acqs++
	h.noteHandedHold(l.Owner())
	if m := l.Mode(); m.Valid() {
		h.byMode[m]++
	}
	h.lastAcq = h.s.Now()
	if pr.quietWait && pr.bypass > h.maxBypass {
		h.maxBypass = pr.bypass
	}
	for _, q := range h.procs {
		if q != pr && q.waiting && q.quietWait {
			q.bypass++
		}
	}
	if h.onAcquired != nil {
		h.onAcquired(pr, l)
	}
}

func (h *harness) releasing(pr *proc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f, ok := pr.locker.(interface{ flagMode() lockstep.Mode }); ok && pr.holding != nil && f.flagMode() != pr.holding.Mode() {
		h.heldAcross++
	}
	pr.holding = nil
}

func (h *harness) releaseDone(l lockstep.Lock) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stillShared(l.Owner()) {
		return // another process holds the owner's lock (transferfleet_test.go)
	}
	if handedOn(l) {
		return // another goroutine of the process holds the owner's lock (cohort_test.go)
	}
	h.released[l.Owner()] = true
}
