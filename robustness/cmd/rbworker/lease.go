package main

import (
	"context"
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// tracker is the worker's Observer: it follows the lease events of the hold
// in progress and keeps the lower bound of its deadline (see the package
// documentation). The worker holds at most one lock at a time — one id, or
// one group of members (a lock-manager acquisition: each member id, the
// ancestors of a hierarchical id included, has its own lease and reports
// under its own id). Safe for concurrent use: the library calls it from its
// renewal goroutines.
type tracker struct {
	w      *worker
	window int64 // ns
	// lockd: the worker takes its locks through lockd (--lockd), whose
	// holds have no lease events; a hold ends when the client knew of its
	// loss (lockd.go, lossWatch).
	lockd bool

	mu  sync.Mutex
	cur *hold
}

var _ lockstep.Observer = (*tracker)(nil)

// hold is one Lock call and, once it succeeds, the lock it returned.
type hold struct {
	id      string          // the history's key of the hold: the id, or the group's ids joined by "+"
	members []string        // a lock-manager acquisition's requests, "<id>:<access>"; nil for a plain Lock
	ids     map[string]bool // every id whose lease the hold has: the requested ids and their ancestors
	invoke  int64           // when Lock was called
	mode    lockstep.Mode
	token   int64
	owner   string
	prev    map[leaseKey]int64 // lease → when its last event was reported
	okLB    map[leaseKey]int64 // lease → lower bound on its last successful send
	twice   map[string]bool    // ids seen reporting in mode combined (two leases)
	lost    bool               // a lost op was recorded
	// A lockd hold (tracker.lockd): when Lock returned, and the watcher of
	// its Lost channel.
	heldAt int64
	loss   *lossWatch
}

// leaseKey names one lease of a hold: the member id, and the mode and
// owner its events report (a combined member's two halves differ in owner).
type leaseKey struct{ id, lease string }

// begin starts tracking a Lock call on id (the hold's key), holding the
// leases of ids.
func (t *tracker) begin(id string, members []string, ids []string, now int64) *hold {
	h := &hold{id: id, members: members, ids: map[string]bool{}, invoke: now,
		prev: map[leaseKey]int64{}, okLB: map[leaseKey]int64{}, twice: map[string]bool{}}
	for _, x := range ids {
		h.ids[x] = true
	}
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
	if t.lockd {
		h.heldAt = t.w.clk.Now()
		if !t.w.c.planted.ignoreLost {
			h.loss = t.watchLoss(l)
		}
	}
}

// end stops tracking.
func (t *tracker) end() {
	t.mu.Lock()
	if t.cur != nil {
		t.cur.loss.end()
	}
	t.cur = nil
	t.mu.Unlock()
}

// deadline returns the lower bound of h's lease deadline.
func (t *tracker) deadline(h *hold) int64 {
	if t.lockd {
		return lockdDeadline(h, 0)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.deadlineLocked(h)
}

// deadlineLocked: the earliest, over the lock's leases, of the lower bound
// on the last successful send plus the window. A lease that has not renewed
// yet counts from the Lock call (its claim was sent after it). Each id has
// one lease, two in mode combined; before Lock returns the mode is unknown
// and two are assumed. A group's mode is its first member's, and during a
// rollout another member may be combined: an id that reported in mode
// combined counts two leases from then on — before its first report it
// counts from the Lock call anyway.
func (t *tracker) deadlineLocked(h *hold) int64 {
	earliest := history.Never
	for id := range h.ids {
		leases := 1
		if h.mode == lockstep.ModeCombined || h.mode == lockstep.ModeUnknown || h.twice[id] {
			leases = 2
		}
		got := 0
		for k, v := range h.okLB {
			if k.id == id {
				got++
				earliest = min(earliest, v)
			}
		}
		if got < leases {
			earliest = min(earliest, h.invoke)
		}
	}
	return earliest + t.window
}

// ObserveLease records one renewal attempt of the current hold.
func (t *tracker) ObserveLease(_ context.Context, e lockstep.LeaseEvent) {
	now := t.w.clk.Now()
	t.mu.Lock()
	h := t.cur
	if h == nil || !h.ids[e.ID] || e.Lost {
		// Lost is recorded when the worker sees it, not when the
		// watchdog declares it: the worker acts as holder until then.
		t.mu.Unlock()
		return
	}
	// A combined lock's halves report in the lock's mode, each under its
	// own owner id (one sequence per process spans both Lockers).
	key := leaseKey{e.ID, e.Mode.String() + "/" + e.Owner}
	if e.Mode == lockstep.ModeCombined {
		h.twice[e.ID] = true
	}
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
