package propertytests

import (
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep/model/sim"
)

// Liveness bounds, derived from the TTL: a crashed or paused holder's cells
// are gone after at most a TTL (plus a second of Cassandra's rounding and the
// replica skew); a waiter that lost its place notices within a poll and
// renews within Renew; then each process ahead holds for its work and hands
// over within a few polls.
var (
	livenessBound = 3 * ttl
	// quietLength is how long the quiet phase runs: long enough for every
	// waiter of the start to hit the bound if it is starved.
	quietLength = livenessBound + 2*time.Second
)

// bypassBound bounds, in a starvation-free fleet of n processes, how often
// others may acquire during one wait that began in the quiet phase: each
// other process at most twice — once with a cell named before it saw ours
// (clock skew), once more while our name was not yet visible to it.
// maxStepsPerInstant bounds the steps the quiet phase grants without virtual
// time passing: more means processes spin on the store without ever waiting.
const maxStepsPerInstant = 2000

func bypassBound(n int) int { return 2 * (n - 1) }

// quietPhase is the liveness check after the random phase (TigerBeetle's
// VOPR, Antithesis' quiet period): faults off — messages delivered, pauses
// over, crashed processes gone for good — and a fair round-robin schedule in
// which every runnable goroutine moves before time advances. Then, for a
// starvation-free fleet, every waiter acquires within livenessBound and is
// bypassed at most bypassBound times; otherwise some waiter acquires within
// livenessBound of the last acquisition (deadlock freedom). Safety is still
// checked after every step.
func (h *harness) quietPhase() error {
	s := h.s
	for _, pr := range h.procs {
		s.Pause(pr.sp, 0)
	}
	s.HealDCs() // a DC partition heals, as the quiet phase's outages end (dc_test.go)
	for _, pr := range h.procs {
		s.Reroute(pr.sp) // and every session routes to its own data centre again
	}
	s.Cluster().DeliverAll()
	if h.wake != nil && !h.wake.arriveInQuiet {
		h.wake.loseAll() // progress by polls alone (wake_test.go)
	}
	// Clocks stepped in the random phase are brought back within
	// ±clientSkew, as NTP would. A wall clock never goes back, so one
	// stepped ahead stands still until true time catches up with it; the
	// quiet phase's bounds, which assume clocks within MaxClockSkew of each
	// other, start counting only then. Safety is checked meanwhile too.
	settle := s.Now()
	for _, pr := range h.live() {
		if sk := pr.sp.Skew(); sk > clientSkew || sk < -clientSkew {
			s.SetSkew(pr.sp, max(-clientSkew, min(clientSkew, sk)))
		}
		settle = max(settle, pr.sp.Now()-clientSkew.Microseconds())
	}
	// A cut off the legacy tables (cut_test.go) runs its course, as an
	// outage would, before the bounds start counting.
	for _, until := range h.cutUntil {
		settle = max(settle, until)
	}
	if err := h.fairRun(settle, false); err != nil {
		return err
	}
	h.endCuts()
	h.mu.Lock()
	h.quiet, h.quietStart = true, s.Now()
	h.mu.Unlock()
	length := quietLength
	if h.co != nil && h.f.starvationFree {
		// Long enough for C3's bound; a fleet that is not starvation-free
		// (cohorttransfer_test.go) checks deadlock freedom, within
		// livenessBound.
		length = h.f.cohort.waitBound() + 2*time.Second
	}
	if h.grp != nil {
		h.mu.Lock()
		length = h.grp.quietLength(h.procs)
		h.mu.Unlock()
	}
	return h.fairRun(s.Now()+length.Microseconds(), true)
}

// fairRun grants every runnable goroutine in turn, round-robin by process,
// before time advances, until virtual time reaches end, checking safety
// after every step and, with live set, liveness.
func (h *harness) fairRun(end int64, live bool) error {
	s := h.s
	next := 0 // round-robin position, by process index
	for steps, lastNow := 0, s.Now(); s.Now() < end; steps++ {
		if s.Now() != lastNow {
			steps, lastNow = 0, s.Now()
		}
		if steps > maxStepsPerInstant {
			return fmt.Errorf("liveness: livelock: %d steps without time passing\ntrace:\n%s", steps, h.report())
		}
		if h.wake != nil {
			h.wakeArrive()
		}
		ys := s.Runnable()
		if len(ys) == 0 {
			if s.Messages() > 0 {
				s.Cluster().DeliverAll()
				continue
			}
			if !s.Tick() {
				return fmt.Errorf("liveness: nothing can ever run again\ntrace:\n%s", h.report())
			}
		} else {
			h.grant(roundRobin(ys, &next), zeroChooser{})
		}
		if err := h.checkSafety(); err != nil {
			return fmt.Errorf("%w (in the quiet phase)\ntrace:\n%s", err, h.report())
		}
		if !live {
			continue
		}
		if err := h.checkLiveness(); err != nil {
			return fmt.Errorf("liveness: %w\ntrace:\n%s", err, h.report())
		}
	}
	return nil
}

func (h *harness) checkLiveness() error {
	if h.v.longHolds > 0 || h.v.noLiveness {
		return nil // the bounds assume holds of workSteps
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(h.procs)
	bound, bypass := livenessBound, bypassBound(n)
	if h.co != nil {
		bound, bypass = h.f.cohort.waitBound(), h.f.cohort.bypassBound(n)
	}
	oldest := int64(-1)
	for _, pr := range h.procs {
		if !pr.waiting || pr.sp.Crashed() {
			continue
		}
		since := max(pr.waitStart, h.quietStart)
		if oldest < 0 || since < oldest {
			oldest = since
		}
		if !h.f.starvationFree {
			continue
		}
		if w := h.elapsed(since); w > bound {
			return fmt.Errorf("%s has waited %v in the quiet phase (bound %v)", pr.sp.Name, w, bound)
		}
		if pr.quietWait && pr.bypass > bypass {
			return fmt.Errorf("%s was bypassed %d times in one wait (bound %d)", pr.sp.Name, pr.bypass, bypass)
		}
	}
	if h.grp != nil {
		if err := h.checkGroupLiveness(); err != nil {
			return err
		}
	}
	if oldest >= 0 && !h.f.starvationFree && !h.v.onlyBypass {
		since := max(oldest, h.lastAcq, h.quietStart)
		if w := h.elapsed(since); w > livenessBound {
			return fmt.Errorf("no acquisition for %v while processes wait (bound %v): deadlock", w, livenessBound)
		}
	}
	return nil
}

// roundRobin picks, among the runnable yields ys (in process order), the
// first of a process at or after next, wrapping to the first, and moves
// next past it: the fair schedule of the quiet phase and of the calm
// stretches some fleets run.
func roundRobin(ys []*sim.Yield, next *int) *sim.Yield {
	k := 0
	for i, y := range ys {
		if y.Proc.Index >= *next {
			k = i
			break
		}
	}
	*next = ys[k].Proc.Index + 1
	return ys[k]
}
