package propertytests

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model/sim"
)

// groupSpec makes a fleet a lock-manager fleet (groupfleet_test.go): its
// processes run groupUser, and the harness checks the properties of
// accesscheck_test.go on what they record here.
type groupSpec struct {
	sep string // the hierarchy separator the fleet's Lockers use
	// bounded: every pending group acquisition must complete within
	// groupWaitBound of its plan in the quiet phase (property G2). Without
	// it only deadlock freedom is asked (the harness's check for fleets
	// that are not starvation-free).
	bounded bool
	// fifo: the fleet's queue halves grant in FIFO order among incompatible
	// requests, so no wait may be overtaken at its first member beyond
	// bypassBound (property G3).
	fifo bool
	// ids is the id space the fleet's processes draw from; nil: groupIDs.
	ids []string
	// flags: each request also draws its lockstep.Flags (flagSlots), so
	// queries with and without them meet on the same ids.
	flags bool
}

// idSpace returns the ids the fleet's processes draw from.
func (s groupSpec) idSpace() []string {
	if s.ids == nil {
		return groupIDs
	}
	return s.ids
}

// groupState is what one run of a lock-manager fleet records; guarded by
// harness.mu.
type groupState struct {
	spec    groupSpec
	history map[*proc][]groupOp // the operations each process drew
	next    map[*proc]int       // the next of them to repeat in the quiet phase
	start   map[*proc]int64     // virtual µs of each process's latest call
	waits   map[*proc]*groupWait
	holds   map[*proc]groupOp // what each holder asked for
	locks   map[*proc]lockstep.Lock
	stats   groupStats
}

// groupStats count what the lock-manager fleets did, for the test log.
type groupStats struct {
	calls, tries, triesBusy, cancelled, maxOvertakes, maxMembers int
	maxWait                                                      time.Duration // longest wait, in the quiet phase, of a call that acquired
	// invalid counts calls refused with ErrInvalidID (a mask in an
	// intention access, flags that disagree with the id); flagged counts
	// acquisitions of a group with a request that has flags.
	invalid, flagged int
}

func (s *groupStats) add(o groupStats) {
	s.calls += o.calls
	s.tries += o.tries
	s.triesBusy += o.triesBusy
	s.cancelled += o.cancelled
	s.invalid += o.invalid
	s.flagged += o.flagged
	s.maxOvertakes = max(s.maxOvertakes, o.maxOvertakes)
	s.maxMembers = max(s.maxMembers, o.maxMembers)
	s.maxWait = max(s.maxWait, o.maxWait)
}

func newGroupState(spec groupSpec) *groupState {
	return &groupState{spec: spec, history: map[*proc][]groupOp{}, next: map[*proc]int{}, start: map[*proc]int64{},
		waits: map[*proc]*groupWait{}, holds: map[*proc]groupOp{}, locks: map[*proc]lockstep.Lock{}}
}

// groupCalling records that pr calls op now: a blocking call waits (the
// harness's deadlock check sees pr.waiting too).
func (h *harness) groupCalling(pr *proc, op groupOp) {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.grp
	now := h.s.Now()
	g.start[pr] = now
	g.stats.calls++
	h.event("%s calls %v", pr.sp.Name, op)
	if op.call == callTryLockGroup {
		g.stats.tries++
		return
	}
	w := newGroupWait(op.reqs, g.spec.sep, now, h.quiet)
	g.waits[pr] = w
	g.stats.maxMembers = max(g.stats.maxMembers, w.members)
	pr.waiting, pr.waitStart, pr.quietWait, pr.bypass = true, now, h.quiet, 0
}

func (h *harness) groupCallFailed(pr *proc, op groupOp, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.grp
	h.event("%s: %v failed: %v", pr.sp.Name, op, err)
	switch {
	case errors.Is(err, lockstep.ErrLocked):
		g.stats.triesBusy++
	case errors.Is(err, context.Canceled):
		g.stats.cancelled++
	case errors.Is(err, lockstep.ErrInvalidID):
		g.stats.invalid++
	}
	delete(g.waits, pr)
	pr.waiting = false
}

// groupAcquired records that pr holds op's requests through l, and counts
// the waits l overtook (property G3).
func (h *harness) groupAcquired(pr *proc, op groupOp, l lockstep.Lock) {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.grp
	h.event("%s acquired %v as %s", pr.sp.Name, op, l.Owner())
	if w := g.waits[pr]; w != nil && h.quiet {
		g.stats.maxWait = max(g.stats.maxWait, h.elapsed(max(w.start, h.quietStart)))
		h.maxWait = max(h.maxWait, g.stats.maxWait)
	}
	delete(g.waits, pr)
	pr.waiting = false
	pr.acquired++
	pr.worked = 0
	h.acqs++
	if m := l.Mode(); m.Valid() {
		h.byMode[m]++
	}
	h.lastAcq = h.s.Now()
	g.holds[pr], g.locks[pr] = op, l
	if slices.ContainsFunc(op.reqs, func(r lockstep.Request) bool { return r.Flags != 0 }) {
		g.stats.flagged++
	}
	h.checkMemberTokens(pr, l)
	imp := implied(op.reqs, g.spec.sep)
	for _, q := range h.procs {
		if w := g.waits[q]; q != pr && w != nil && overtakes(w, imp, g.start[pr]) {
			w.overtakes++
			h.event("%s overtakes %s (waiting for %v since %.3fs)", pr.sp.Name, q.sp.Name, w.reqs, float64(w.start)/1e6)
			if w.quiet {
				g.stats.maxOvertakes = max(g.stats.maxOvertakes, w.overtakes)
				h.maxBypass = max(h.maxBypass, w.overtakes)
			}
		}
	}
}

func (h *harness) groupReleasing(pr *proc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.grp.holds, pr)
	delete(h.grp.locks, pr)
}

// checkGroupSafety is property G1 over the holders whose Lost() is open;
// the caller holds h.mu.
func (h *harness) checkGroupSafety() error {
	g := h.grp
	var gs []grant
	for i, pr := range h.procs {
		l := g.locks[pr]
		if l == nil || pr.sp.Crashed() || !h.validLocked(pr, l) {
			continue
		}
		gs = append(gs, grant{who: fmt.Sprintf("%s (user %d)", pr.sp.Name, i), reqs: g.holds[pr].reqs})
	}
	return checkAccessExclusion(gs, g.spec.sep)
}

// checkGroupLiveness is properties G2 and G3 in the quiet phase, as far as
// the fleet asks for them; the caller holds h.mu.
func (h *harness) checkGroupLiveness() error {
	g := h.grp
	for _, pr := range h.procs {
		w := g.waits[pr]
		if w == nil || pr.sp.Crashed() {
			continue
		}
		if g.spec.bounded && !h.v.onlyBypass {
			if err := checkGroupWait(pr.sp.Name, w, h.quietStart, h.s.Now()); err != nil {
				return err
			}
		}
		if g.spec.fifo {
			if err := checkBypass(pr.sp.Name, w, len(h.procs)); err != nil {
				return err
			}
		}
	}
	return nil
}

// quietLength is how long the quiet phase of a lock-manager fleet runs:
// long enough for the largest plan a process waits for or will repeat to
// hit its bound if it is starved.
func (g *groupState) quietLength(procs []*proc) time.Duration {
	if !g.spec.bounded {
		return quietLength
	}
	members := 1
	for _, pr := range procs {
		if w := g.waits[pr]; w != nil {
			members = max(members, w.members)
		}
		for _, op := range g.history[pr] {
			if op.call != callTryLockGroup {
				members = max(members, len(implied(op.reqs, g.spec.sep)))
			}
		}
	}
	return usDuration(groupWaitBound(members)) + 2*time.Second
}

// withChooser makes ch the chooser groupUser draws from, or none; on the
// way out it raises again a panic a draw caught.
func (h *harness) withChooser(ch sim.Chooser) {
	h.mu.Lock()
	h.ch = ch
	p := h.drawPanic
	h.drawPanic = nil
	h.mu.Unlock()
	if ch == nil && p != nil {
		panic(p)
	}
}

// checkReturnedWhole is part of property 3 for groups: a group is held only
// while every member is (internal/manager, "Losing a member";
// docs/algorithms.md, Lemma 10), so one returned with Lost() already
// closed has a member whose lease ended before the caller got it. Called
// as the call returns, before the caller yields again: afterwards time may
// pass and the lease may lapse, as it may for any holder.
func (h *harness) checkReturnedWhole(pr *proc, op groupOp, l lockstep.Lock) {
	if h.v.noLeaseCheck {
		return
	}
	select {
	case <-l.Lost():
		h.mu.Lock()
		defer h.mu.Unlock()
		h.violate("lease: %s's %v returned a group already lost (Lost() closed): a member's lease lapsed before the group was complete", pr.sp.Name, op)
	default:
	}
}
