package main

import (
	"context"
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// tracker is the worker's Observer: it follows the lease events of the
// holds in progress and keeps the lower bound of each one's deadline (see
// the package documentation). Each of the worker's goroutines (--goroutines)
// holds at most one lock at a time — one id, or one group of members (a
// lock-manager acquisition, with one goroutine only: each member id, the
// ancestors of a hierarchical id included, has its own lease and reports
// under its own id). Leases are followed per id, not per hold: with local
// handoff (--local-handoff) one store hold, and its lease, passes from one
// goroutine's hold to the next, and the next goroutine's deadline is the
// store hold's, which its own Lock call does not bound. Safe for concurrent
// use: the library calls it from its renewal goroutines.
type tracker struct {
	w      *worker
	window int64 // ns
	// lockd: the worker takes its locks through lockd (--lockd), whose
	// holds have no lease events; a hold ends when the client knew of its
	// loss (lockd.go, lossWatch).
	lockd bool

	mu    sync.Mutex
	holds map[*hold]bool       // the goroutines' holds in progress
	ids   map[string]*idLeases // ids some hold in progress has
}

var _ lockstep.Observer = (*tracker)(nil)

// idLeases are the leases of one id while some of the worker's holds in
// progress (in a Lock call, or holding) have it. No two of them hold the id
// exclusively at once, so at most one store acquisition of it is held at a
// time; several follow one another while the holds of the id keep
// overlapping.
type idLeases struct {
	users int // holds in progress that have the id
	// since bounds from below the send of every claim of the id that a
	// lease tracked here started from: the invoke of the Lock call that
	// made it, or of an earlier one of the id still in progress.
	since int64
	owner string           // the owner of the last hold that returned with the id: its store acquisition's
	prev  map[string]int64 // lease (mode/owner) → when its last event was reported
	okLB  map[string]int64 // lease → lower bound on its last successful send
	twice bool             // seen reporting in mode combined (two leases)
}

// hold is one Lock call and, once it succeeds, the lock it returned.
type hold struct {
	name    string          // the holder: the goroutine's name in the history
	id      string          // the history's key of the hold: the id, or the group's ids joined by "+"
	members []string        // a lock-manager acquisition's requests, "<id>:<access>"; nil for a plain Lock
	ids     map[string]bool // every id whose lease the hold has: the requested ids and their ancestors
	invoke  int64           // when Lock was called
	held    bool            // Lock returned it
	mode    lockstep.Mode
	token   int64
	owner   string
	lost    bool // a lost op was recorded
	// A lockd hold (tracker.lockd): when Lock returned, and the watcher of
	// its Lost channel.
	heldAt int64
	loss   *lossWatch
}

// begin starts tracking holder name's Lock call on id (the hold's key),
// holding the leases of ids.
func (t *tracker) begin(name, id string, members []string, ids []string, now int64) *hold {
	h := &hold{name: name, id: id, members: members, ids: map[string]bool{}, invoke: now}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.holds == nil {
		t.holds, t.ids = map[*hold]bool{}, map[string]*idLeases{}
	}
	t.holds[h] = true
	for _, x := range ids {
		h.ids[x] = true
		il := t.ids[x]
		if il == nil {
			il = &idLeases{since: now, prev: map[string]int64{}, okLB: map[string]int64{}}
			t.ids[x] = il
		}
		il.users++
	}
	return h
}

// held records what Lock returned. A hold that returned with another owner
// than the id's last is a new store acquisition, claimed after its own
// Lock call began: the previous one's leases are over, and the new one's
// count from that call. One with the same owner was handed the store hold
// (local handoff) and shares its leases.
func (t *tracker) held(h *hold, l lockstep.Lock) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h.held, h.mode, h.owner = true, l.Mode(), l.Owner()
	if f, ok := l.(lockstep.Fenced); ok {
		h.token = f.Token()
	}
	for id := range h.ids {
		il := t.ids[id]
		if il.owner != "" && il.owner != h.owner {
			il.since, il.twice = h.invoke, false
			clear(il.prev)
			clear(il.okLB)
		}
		il.owner = h.owner
	}
	if t.lockd {
		h.heldAt = t.w.clk.Now()
		if !t.w.c.planted.ignoreLost {
			h.loss = t.watchLoss(l)
		}
	}
}

// end stops tracking h; an id no hold in progress has any more is
// forgotten, with its leases.
func (t *tracker) end(h *hold) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h.loss.end()
	delete(t.holds, h)
	for id := range h.ids {
		if il := t.ids[id]; il != nil {
			if il.users--; il.users == 0 {
				delete(t.ids, id)
			}
		}
	}
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
// yet counts from the claim's bound (idLeases.since). Each id has one
// lease, two in mode combined; before Lock returns the mode is unknown and
// two are assumed. A group's mode is its first member's, and during a
// rollout another member may be combined: an id that reported in mode
// combined counts two leases from then on — before its first report it
// counts from since anyway.
func (t *tracker) deadlineLocked(h *hold) int64 {
	earliest := history.Never
	for id := range h.ids {
		il := t.ids[id]
		leases := 1
		if h.mode == lockstep.ModeCombined || h.mode == lockstep.ModeUnknown || il.twice {
			leases = 2
		}
		for _, v := range il.okLB {
			earliest = min(earliest, v)
		}
		if len(il.okLB) < leases {
			earliest = min(earliest, il.since)
		}
	}
	return earliest + t.window
}

// ObserveLease records one renewal attempt of the id's store acquisition,
// in the history of the goroutine that holds it (or, before any has
// returned from Lock, of one in a Lock call on it).
func (t *tracker) ObserveLease(_ context.Context, e lockstep.LeaseEvent) {
	now := t.w.clk.Now()
	t.mu.Lock()
	il := t.ids[e.ID]
	if il == nil || e.Lost {
		// Lost is recorded when the worker sees it, not when the
		// watchdog declares it: the worker acts as holder until then.
		t.mu.Unlock()
		return
	}
	// A combined lock's halves report in the lock's mode, each under its
	// own owner id (one sequence per process spans both Lockers).
	key := e.Mode.String() + "/" + e.Owner
	if e.Mode == lockstep.ModeCombined {
		il.twice = true
	}
	sentLB, seen := il.prev[key]
	if !seen {
		sentLB = il.since
	}
	il.prev[key] = now
	if e.Renewed {
		il.okLB[key] = max(il.okLB[key], sentLB)
	}
	h := t.reporter(e.ID)
	r := history.Record{Process: h.name, Lock: h.id, Op: history.Renew, Token: h.token, Mode: modeName(h.mode),
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

// reporter is the hold a lease event of id is recorded under: the one that
// returned from Lock with it (the earliest invoked, should there be several:
// shared holds of one goroutine's group), else the earliest invoked.
func (t *tracker) reporter(id string) *hold {
	var best *hold
	for h := range t.holds {
		if !h.ids[id] {
			continue
		}
		if best == nil || h.held && !best.held || h.held == best.held && h.invoke < best.invoke {
			best = h
		}
	}
	return best
}

func (t *tracker) ObserveAcquire(context.Context, lockstep.AcquireEvent) {}
func (t *tracker) ObserveRelease(context.Context, lockstep.ReleaseEvent) {}

func modeName(m lockstep.Mode) string {
	if m == lockstep.ModeUnknown {
		return ""
	}
	return m.String()
}
