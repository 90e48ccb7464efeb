package propertytests

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The deadlock fleet (docs/algorithms.md, section 8.5): three
// queue-lock processes with deadlock detection, each a unit of work (a
// reentrancy holder) that takes two of deadlockIDs, exclusively, one Lock
// call after the other, in an order it draws, so that cycles of waits form.
// A unit that gets lockstep.ErrDeadlock releases what it holds, as the
// error asks, and goes on. The properties, besides the harness's own:
//
//   - access exclusion: no two held locks of one id with Lost() open; the
//     lease, owner-cell and fencing properties judge both of a unit's locks;
//   - no permanent deadlock: in the quiet phase some waiter acquires within
//     livenessBound of the last acquisition (the harness's deadlock
//     freedom, liveness_test.go);
//   - ErrDeadlock only when a cycle existed: when a call fails with it, the
//     recorded history (not the library) must show an instant of that
//     call's wait at which its process waited, through the others, for
//     itself. A wait lasts from the call to its return; a holding from the
//     return of the call that took it to the return of its Unlock.
//
// The controls (negative_manager_planted_test.go): DeadlockUndetected and
// DeadlockVictimUnshared are caught by deadlock freedom, DeadlockBystander
// by the oracle.
//
// Flat ids and exclusive locks only: a cycle that needs a FIFO edge is
// not detected (docs/algorithms.md, section 8.5), and with exclusive locks
// every lasting cycle contains one of hold edges.
var deadlockIDs = []string{"a", "b", "c"}

// deadlockTable is where the fleet's wait records live: the default.
const deadlockTable = "lock_waits"

var managerDetecting = kind{name: "new/deadlock", mode: lockstep.ModeNew, user: nestedUser,
	new: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
		l, err := queuelock.New(p.Store(), &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Poll: poll, MaxClockSkew: maxClockSkew,
			Clock: k.clock(p.Clock()), ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), Fencing: fencing,
			Deadlock: &lockstep.DeadlockDetection{}, TestingKnobs: k.queue})
		if err != nil {
			return nil, nil, err
		}
		return l, l.Close, nil
	}}

// deadlockFleet: a schedule costs a few of "new" (two locks per unit, and
// the detection rounds of long waits).
var deadlockFleet = fleet{name: "new/deadlock", kinds: []kind{managerDetecting, managerDetecting, managerDetecting},
	deadlock: true, sweepDivisor: 4}

func TestDeadlockFleet_ExclusionNoPermanentDeadlockAndOnlyTrueReports(t *testing.T) {
	checkFleet(t, "new/deadlock")
}

// nestedOp is one unit of work: take ids[0], then ids[1].
type nestedOp struct{ ids [2]string }

func drawNested(ch sim.Chooser) nestedOp {
	i := ch.Choose("first id", len(deadlockIDs))
	j := (i + 1 + ch.Choose("second id", len(deadlockIDs)-1)) % len(deadlockIDs)
	return nestedOp{ids: [2]string{deadlockIDs[i], deadlockIDs[j]}}
}

// span is one interval of the recorded history: a process waiting for id,
// or holding it, in access: the access its Locker really takes (takenIn),
// which is what the oracle judges conflicts by. end < 0: not over yet.
type span struct {
	pr         *proc
	hold       bool
	id         string
	access     lockstep.Access
	start, end int64
}

// takenIn is the access a process of kind k really takes a request for
// access in: the asked one in mode new; Exclusive in modes legacy and
// combined, whose Lockers take every request exclusively (a migration
// Locker's kind names the first mode of its flag's pair, and the shared
// deadlock fleet's pair is legacy and combined).
func takenIn(k kind, access lockstep.Access) lockstep.Access {
	if k.mode == lockstep.ModeNew {
		return access
	}
	return lockstep.Exclusive
}

// deadlockState is what a run of the deadlock fleet records; guarded by
// harness.mu.
type deadlockState struct {
	history map[*proc][]nestedOp
	next    map[*proc]int
	spans   []*span
	held    map[*proc][]*heldLock // what each process holds now
	reports int                   // ErrDeadlock returned
}

type heldLock struct {
	l    lockstep.Lock
	span *span
}

func newDeadlockState() *deadlockState {
	return &deadlockState{history: map[*proc][]nestedOp{}, next: map[*proc]int{}, held: map[*proc][]*heldLock{}}
}

// nextNested is nextOp for the deadlock fleet.
func (h *harness) nextNested(pr *proc) nestedOp {
	h.mu.Lock()
	defer h.mu.Unlock()
	d := h.dl
	if h.ch != nil && h.drawPanic == nil {
		op, p := drawNestedCatching(h.ch)
		if p == nil {
			d.history[pr] = append(d.history[pr], op)
			return op
		}
		h.drawPanic = p
	}
	hist := d.history[pr]
	if len(hist) == 0 {
		return nestedOp{ids: [2]string{"a", "b"}}
	}
	op := hist[d.next[pr]%len(hist)]
	d.next[pr]++
	return op
}

func drawNestedCatching(ch sim.Chooser) (op nestedOp, caught any) {
	defer func() { caught = recover() }()
	return drawNested(ch), nil
}

// nestedUser is a unit of work per operation: take both ids, work checking
// both locks' Lost(), release the second then the first; on ErrDeadlock
// (or any failure of the second) release the first and go on. It takes
// each id exclusively, by Lock.
func nestedUser(h *harness, ctx context.Context, pr *proc) {
	nestedUnits(h, ctx, pr, lockstep.Exclusive)
}

// nestedUnits is nestedUser asking for each id in access (LockGroup of one
// request when it is not Exclusive).
func nestedUnits(h *harness, ctx context.Context, pr *proc, access lockstep.Access) {
	clk := pr.sp.Clock()
	for clk.Sleep(ctx, think) == nil {
		op := h.nextNested(pr)
		unit := pr.locker.(lockstep.UnitLocker).Unit(fmt.Sprintf("%s %v", pr.sp.Name, op.ids)) // a fresh unit of work per op
		first, err := h.nestedLock(ctx, unit, pr, op.ids[0], access)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			continue
		}
		second, err := h.nestedLock(ctx, unit, pr, op.ids[1], access)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			h.nestedRelease(ctx, pr, first)
			continue
		}
		for range h.workSteps() {
			if lostNow(first) || lostNow(second) {
				break
			}
			h.mu.Lock()
			h.checkLease(pr, first) // property 3, for both locks the unit works under
			h.checkLease(pr, second)
			h.mu.Unlock()
			if clk.Sleep(ctx, workStep) != nil {
				return // crashed while holding
			}
		}
		h.nestedRelease(ctx, pr, second)
		h.nestedRelease(ctx, pr, first)
	}
}

func lostNow(l lockstep.Lock) bool {
	select {
	case <-l.Lost():
		return true
	default:
		return false
	}
}

// nestedLock takes id in access for pr's unit, recording the wait and the
// holding, each in the access pr's Locker really takes (takenIn).
func (h *harness) nestedLock(ctx context.Context, u lockstep.Unit, pr *proc, id string, access lockstep.Access) (lockstep.Lock, error) {
	eff := takenIn(pr.kind, access)
	h.mu.Lock()
	now := h.s.Now()
	w := &span{pr: pr, id: id, access: eff, start: now, end: -1}
	h.dl.spans = append(h.dl.spans, w)
	pr.waiting, pr.waitStart, pr.quietWait, pr.bypass = true, now, h.quiet, 0
	if access == lockstep.Exclusive {
		h.event("%s calls Lock(%s)", pr.sp.Name, id)
	} else {
		h.event("%s calls LockGroup(%s:%v)", pr.sp.Name, id, access)
	}
	h.mu.Unlock()

	var l lockstep.Lock
	var err error
	if access == lockstep.Exclusive {
		l, err = u.Lock(ctx, id)
	} else {
		l, err = u.LockGroup(ctx, lockstep.Request{ID: id, Access: access})
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	now = h.s.Now()
	w.end = now
	pr.waiting = false
	if err != nil {
		h.event("%s: Lock(%s) failed: %v", pr.sp.Name, id, err)
		if errors.Is(err, lockstep.ErrDeadlock) {
			h.dl.reports++
			if !h.dl.cycleThrough(pr, w.start, now) {
				h.violate("deadlock: %s's Lock(%s) failed with ErrDeadlock, but the history shows no instant of its wait "+
					"(%.3fs to %.3fs) at which it waited in a cycle: %v", pr.sp.Name, id, float64(w.start)/1e6, float64(now)/1e6, err)
			}
		}
		return nil, err
	}
	h.event("%s acquired %s as %s", pr.sp.Name, id, l.Owner())
	hs := &span{pr: pr, hold: true, id: id, access: eff, start: now, end: -1}
	h.dl.spans = append(h.dl.spans, hs)
	h.dl.held[pr] = append(h.dl.held[pr], &heldLock{l: l, span: hs})
	h.checkMemberTokens(pr, l)
	pr.acquired++
	h.acqs++
	h.lastAcq = now
	return l, nil
}

// nestedRelease unlocks l, retrying once a poll later as a careful user
// would, and records the holding's end when Unlock returns.
func (h *harness) nestedRelease(ctx context.Context, pr *proc, l lockstep.Lock) {
	h.mu.Lock()
	var hl *heldLock
	held := h.dl.held[pr]
	for i, x := range held {
		if x.l == l {
			hl = x
			h.dl.held[pr] = append(held[:i:i], held[i+1:]...)
			break
		}
	}
	h.mu.Unlock()
	err := l.Unlock(context.WithoutCancel(ctx))
	if err != nil && !errors.Is(err, lockstep.ErrLost) && pr.sp.Clock().Sleep(ctx, poll) == nil {
		_ = l.Unlock(context.WithoutCancel(ctx))
	}
	h.mu.Lock()
	if hl != nil {
		hl.span.end = h.s.Now()
	}
	h.mu.Unlock()
	h.releaseDone(l)
}

// cycleThrough reports whether the history shows an instant in [from, to]
// at which pr waited, through others' holdings, for itself. Spans are
// closed intervals, so the graph needs looking at only at their ends.
func (d *deadlockState) cycleThrough(pr *proc, from, to int64) bool {
	at := []int64{from, to}
	for _, s := range d.spans {
		for _, t := range []int64{s.start, s.end} {
			if t >= from && t <= to {
				at = append(at, t)
			}
		}
	}
	for _, t := range at {
		if d.cycleAt(pr, t) {
			return true
		}
	}
	return false
}

// cycleAt: at instant t, does a path of edges p → q (p waits for an id q
// holds in an access incompatible with the one p waits in) lead from pr
// back to pr?
func (d *deadlockState) cycleAt(pr *proc, t int64) bool {
	live := func(s *span) bool { return s.start <= t && (s.end < 0 || t <= s.end) }
	seen := map[*proc]bool{}
	var reach func(p *proc) bool
	reach = func(p *proc) bool {
		for _, w := range d.spans {
			if w.hold || w.pr != p || !live(w) {
				continue
			}
			for _, hs := range d.spans {
				if !hs.hold || hs.id != w.id || hs.pr == p || !live(hs) || w.access.Compatible(hs.access) {
					continue
				}
				if hs.pr == pr {
					return true
				}
				if !seen[hs.pr] {
					seen[hs.pr] = true
					if reach(hs.pr) {
						return true
					}
				}
			}
		}
		return false
	}
	return reach(pr)
}

// checkDeadlockSafety is access exclusion over the locks the units hold
// with Lost() open; the caller holds h.mu.
func (h *harness) checkDeadlockSafety() error {
	valid := map[string][]string{}
	for _, pr := range h.procs {
		if pr.sp.Crashed() {
			continue
		}
		for _, hl := range h.dl.held[pr] {
			if lostNow(hl.l) {
				continue
			}
			id := hl.l.ID()
			valid[id] = append(valid[id], hl.l.Owner())
			if len(valid[id]) > 1 {
				return fmt.Errorf("mutual exclusion: %d holders of %q with Lost() open at once: %v", len(valid[id]), id, valid[id])
			}
		}
	}
	return nil
}

// The oracle has teeth: it finds the cycle of two waits, and refuses a
// report when the other's holding ended before the reporter began waiting,
// or the other was not waiting for the reporter's holding.
func TestDeadlockOracle_JudgesByTheHistory(t *testing.T) {
	p, q := &proc{}, &proc{}
	d := newDeadlockState()
	d.spans = []*span{
		{pr: p, hold: true, id: "a", start: 0, end: -1},
		{pr: q, hold: true, id: "b", start: 5, end: 20},
		{pr: q, id: "a", start: 10, end: 30},
		{pr: p, id: "b", start: 15, end: 40},
	}
	if !d.cycleThrough(p, 15, 40) {
		t.Error("the cycle at 15..20 was not found")
	}
	if d.cycleThrough(p, 21, 40) {
		t.Error("a cycle found after q released b (at 20)")
	}
	if !d.cycleThrough(q, 10, 30) {
		t.Error("the cycle through q at 15..20 was not found")
	}
	d.spans[2].end = 12 // q stopped waiting for a before p waited for b
	if d.cycleThrough(p, 15, 40) {
		t.Error("a cycle found although q no longer waited")
	}
}

// The oracle judges conflicts by the access each Locker really takes: two
// units holding one id each Shared and waiting for the other's are in a
// cycle when their Lockers take Shared exclusively (legacy, combined), and
// in none when they share (mode new).
func TestDeadlockOracle_JudgesByTheAccessTaken(t *testing.T) {
	p, q := &proc{}, &proc{}
	d := newDeadlockState()
	spans := func(pk, qk kind) []*span {
		pa, qa := takenIn(pk, lockstep.Shared), takenIn(qk, lockstep.Shared)
		return []*span{
			{pr: p, hold: true, id: "a", access: pa, start: 0, end: -1},
			{pr: q, hold: true, id: "b", access: qa, start: 0, end: -1},
			{pr: q, id: "a", access: qa, start: 10, end: 30},
			{pr: p, id: "b", access: pa, start: 15, end: 40},
		}
	}
	d.spans = spans(legacy, combined)
	if !d.cycleThrough(p, 15, 40) {
		t.Error("Shared requests taken exclusively: the cycle was not found")
	}
	d.spans = spans(queue, queue)
	if d.cycleThrough(p, 15, 40) || d.cycleThrough(q, 10, 30) {
		t.Error("Shared requests held Shared: a cycle found among compatible holdings")
	}
}
