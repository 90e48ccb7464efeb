package main

import (
	"context"
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// tracker is the worker's Observer: it follows the lease events of the hold
// in progress and keeps the lower bound of its deadline (see the package
// documentation). The worker holds at most one lock at a time. Safe for
// concurrent use: the library calls it from its renewal goroutines.
type tracker struct {
	w      *worker
	window int64 // ns

	mu  sync.Mutex
	cur *hold
}

var _ lockstep.Observer = (*tracker)(nil)

// hold is one Lock call and, once it succeeds, the lock it returned.
type hold struct {
	id     string
	invoke int64 // when Lock was called
	mode   lockstep.Mode
	token  int64
	owner  string
	prev   map[string]int64 // lease (mode/owner) → when its last event was reported
	okLB   map[string]int64 // lease (mode/owner) → lower bound on its last successful send
	lost   bool             // a lost op was recorded
}

// begin starts tracking a Lock call on id.
func (t *tracker) begin(id string, now int64) *hold {
	h := &hold{id: id, invoke: now, prev: map[string]int64{}, okLB: map[string]int64{}}
	t.mu.Lock()
	t.cur = h
	t.mu.Unlock()
	return h
}

// held records what Lock returned.
func (t *tracker) held(h *hold, l lockstep.Lock) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h.mode, h.owner = l.Mode(), l.Owner()
	if f, ok := l.(lockstep.Fenced); ok {
		h.token = f.Token()
	}
}

// end stops tracking.
func (t *tracker) end() {
	t.mu.Lock()
	t.cur = nil
	t.mu.Unlock()
}

// deadline returns the lower bound of h's lease deadline.
func (t *tracker) deadline(h *hold) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.deadlineLocked(h)
}

// deadlineLocked: the earliest, over the lock's leases, of the lower bound
// on the last successful send plus the window. A lease that has not renewed
// yet counts from the Lock call (its claim was sent after it). Before Lock
// returns the mode is unknown and two leases are assumed.
func (t *tracker) deadlineLocked(h *hold) int64 {
	leases := 1
	if h.mode == lockstep.ModeCombined || h.mode == lockstep.ModeUnknown {
		leases = 2
	}
	earliest := history.Never
	if len(h.okLB) < leases {
		earliest = h.invoke
	}
	for _, v := range h.okLB {
		earliest = min(earliest, v)
	}
	return earliest + t.window
}

// ObserveLease records one renewal attempt of the current hold.
func (t *tracker) ObserveLease(_ context.Context, e lockstep.LeaseEvent) {
	now := t.w.clk.Now()
	t.mu.Lock()
	h := t.cur
	if h == nil || h.id != e.ID || e.Lost {
		// Lost is recorded when the worker sees it, not when the
		// watchdog declares it: the worker acts as holder until then.
		t.mu.Unlock()
		return
	}
	// A combined lock's halves report in the lock's mode, each under its
	// own owner id (one sequence per process spans both Lockers).
	key := e.Mode.String() + "/" + e.Owner
	sentLB, seen := h.prev[key]
	if !seen {
		sentLB = h.invoke
	}
	h.prev[key] = now
	if e.Renewed {
		h.okLB[key] = max(h.okLB[key], sentLB)
	}
	r := history.Record{Process: t.w.c.process, Lock: h.id, Op: history.Renew, Token: h.token, Mode: modeName(h.mode),
		InvokeNS: sentLB, ReturnNS: now, Outcome: history.OK, LeaseDeadlineNS: t.deadlineLocked(h), Owner: e.Owner}
	t.mu.Unlock()
	if !e.Renewed {
		r.Outcome = history.Fail
		if e.Err != nil {
			r.Err = e.Err.Error()
		}
	}
	t.w.record(r)
}

func (t *tracker) ObserveAcquire(context.Context, lockstep.AcquireEvent) {}
func (t *tracker) ObserveRelease(context.Context, lockstep.ReleaseEvent) {}

func modeName(m lockstep.Mode) string {
	if m == lockstep.ModeUnknown {
		return ""
	}
	return m.String()
}
