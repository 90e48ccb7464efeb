package queue

import (
	"context"
	"log/slog"
	"sync"

	"github.com/lockstep-go/lockstep"
)

// Wake-ups that cannot make things worse (docs/algorithms.md, section 4.9).
// With wake-ups on, a waiter reads less often than without them: next in
// line it polls every Poll instead of every Poll/4, and further back it
// waits SlowPoll, trusting the releaser to wake it. That trust is earned
// per Locker, and lost again:
//
//   - a Locker relies on wake-ups only once one has arrived for one of its
//     waiters; until then its waiters read at the cadence they use without
//     wake-ups, so wake-ups that never arrive (a port blocked from the
//     start) cost nothing;
//   - a waiter that the releaser's claim must have seen (it saw the
//     releaser's entry right in front of it before that entry held, so the
//     claim's read, after the claim's write, saw it behind) and that then
//     notices the release with a read of its own, no wake-up having come,
//     counts a miss; after missesToBlock misses in a row the Locker stops
//     relying on wake-ups, and the next wake-up that arrives restores it.
//
// Only a waiter the releaser's claim saw expects a wake-up when next in line;
// one that arrived after the claim reads at the cadence without wake-ups.
// The first missesToBlock misses in a row, then, are all that lost wake-ups
// can cost a Locker that relied on them: each stalls the line for at most
// SlowPoll. The Logger and an Observer that implements
// lockstep.WakeObserver are told when the misses reach missesToBlock and
// when wake-ups arrive again after that.

// missesToBlock is how many handoffs in a row must come without their
// wake-up before a Locker stops relying on wake-ups. A wake-up that merely
// arrives after the waiter's own poll (a slow network) counts as missed:
// for the waiter it was.
const missesToBlock = 2

// wakeHealth is a Locker's record of whether its wake-ups arrive. Safe for
// concurrent use.
type wakeHealth struct {
	mu       sync.Mutex
	missed   int  // handoffs in a row noticed without their wake-up
	relied   bool // a wake-up arrived since the last missesToBlock misses in a row
	reported bool // the misses were reported, and no wake-up arrived since
}

// reliedOn reports whether the Locker's waiters may rely on wake-ups.
func (h *wakeHealth) reliedOn() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.relied
}

// wakeArrived records a wake-up that arrived for one of the Locker's
// waiters.
func (l *Locker) wakeArrived() {
	h := &l.wakeHealth
	h.mu.Lock()
	was := h.reported
	h.missed, h.relied, h.reported = 0, true, false
	h.mu.Unlock()
	if was {
		l.cfg.Logger.Info("queuelock: wake-ups arrive again; waiters rely on them again")
		l.observeWake(lockstep.WakeEvent{Blocked: false})
	}
}

// wakeMissed records a handoff that its waiter noticed by reading, with no
// wake-up, though the releaser's claim had seen it.
func (l *Locker) wakeMissed(id string) {
	h := &l.wakeHealth
	h.mu.Lock()
	h.missed++
	n, report := h.missed, h.missed >= missesToBlock && !h.reported
	if h.missed >= missesToBlock {
		h.relied = false
	}
	if report {
		h.reported = true
	}
	h.mu.Unlock()
	if report {
		l.cfg.Logger.Warn("queuelock: wake-ups are not arriving; waiters read at the cadence they use without wake-ups",
			slog.String("id", id), slog.Int("missed_in_a_row", n),
			slog.String("check", "the wake-up port is reachable between every pair of processes (UDP), every releaser has Options.Wake set, and all share Wake.Key"))
		l.observeWake(lockstep.WakeEvent{Blocked: true, Missed: n})
	}
}

func (l *Locker) observeWake(e lockstep.WakeEvent) {
	if o, ok := l.cfg.Observer.(lockstep.WakeObserver); ok {
		o.ObserveWake(context.Background(), e)
	}
}

// handoffMissed notes, from a read v made while we wait (not one a wake-up
// caused), whom we expect a wake-up from, and reports whether the read
// shows a handoff that was due with one: an entry we saw right in front of
// us before it held (its claim's read saw us behind it, so its release
// sends us a wake-up) has left the line, and nothing in front of us stops
// our claim. It also sets a.expect: we are next and the head of the line
// is that entry.
func (a *attempt) handoffMissed(v view) bool {
	if a.l.wake == nil {
		return false
	}
	i := v.position(a.qcol)
	if i < 0 {
		a.ahead, a.aheadOwner, a.expect = "", "", false
		return false
	}
	// Left the line: released, not merely holding with its queue cell
	// given up (part.renew), which is no handoff and sends no wake-up.
	missed := a.ahead != "" && v.position(a.ahead) < 0 && !v.mayHold(a.aheadOwner, a.aheadAccess) && a.mayClaim(v)
	if missed {
		a.ahead, a.aheadOwner = "", ""
	}
	if i >= 1 {
		if e := v.queue[i-1]; !v.mayHold(e.Owner, e.Access) {
			a.ahead, a.aheadOwner, a.aheadAccess = e.Column, e.Owner, e.Access
		}
	}
	// Next in line behind that entry: right behind its queue cell, or
	// first in line once it holds and has given the queue cell up
	// (part.renew) while its owner cell stands.
	a.expect = i == 1 && a.ahead == v.queue[0].Column ||
		i == 0 && a.ahead != "" && v.position(a.ahead) < 0 && v.mayHold(a.aheadOwner, a.aheadAccess)
	return missed
}
