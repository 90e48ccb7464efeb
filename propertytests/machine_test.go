package propertytests

import (
	"time"

	"pgregory.net/rapid"

	"github.com/lockstep-go/lockstep/model/sim"
)

// chooser lets rapid make the scheduler's choices; 0, the benign choice, is
// where shrinking goes.
type chooser struct{ t *rapid.T }

var choices = map[int]*rapid.Generator[int]{}

func (c chooser) Choose(label string, n int) int {
	if n <= 1 {
		return 0
	}
	g, ok := choices[n]
	if !ok {
		g = rapid.IntRange(0, n-1)
		choices[n] = g
	}
	return g.Draw(c.t, label)
}

// Random-phase actions. Each is one scheduler decision or fault.
const (
	actStep    = iota // a process moves: one of its goroutines passes a yield point
	actTick           // time passes to the next deadline, even with requests in flight (slow requests)
	actNet            // a message in flight reaches its replica, or is lost for good
	actTimeout        // a request times out at the client; a write may have reached some replicas
	actFault          // a clock skew, a pause, a crash or a timestamp collision
	actCut            // one process cut off the legacy tables for a while (cut_test.go)
	numActs
)

// actNames name the actions in scripts' printed form. A new action goes
// last, before numActs: scripts store actions by number.
var actNames = [numActs]string{"step", "tick", "net", "timeout", "fault", "cut"}

// actWeights bias the random phase towards progress: the bugs worth finding
// are interleavings of the processes' steps, which uniform choice among five
// kinds of action would dilute (one planted bug went uncaught in 3,000
// checks that way). Steps come first, so rapid shrinks any action towards a
// plain step. A cut is not applicable to a fleet without legacy tables.
var actWeights = [numActs]int{actStep: 12, actTick: 3, actNet: 2, actTimeout: 1, actFault: 1, actCut: 1}

// actionSlots lists each action as many times as its weight.
var actionSlots = slotsOf(actWeights)

// faultyWeights make faults four times as likely, for a control whose
// defect shows only after a fault (a wall-clock step) and a few steps.
var faultyWeights = [numActs]int{actStep: 12, actTick: 3, actNet: 2, actTimeout: 2, actFault: 4}

// slowWeights also let time pass more often: a defect that keeps a lease
// open too long shows when a holder's renewals are not granted for a while
// (ticks) and its work step is.
var slowWeights = [numActs]int{actStep: 8, actTick: 6, actNet: 1, actTimeout: 1, actFault: 4}

// netWeights make the net action three times as likely, for a control
// whose defect shows only through the wake-up network (wake_test.go).
var netWeights = [numActs]int{actStep: 12, actTick: 3, actNet: 6, actTimeout: 1, actFault: 1}

func slotsOf(weights [numActs]int) []int {
	var out []int
	for a, w := range weights {
		for range w {
			out = append(out, a)
		}
	}
	return out
}

// randomPhase lets rapid drive the fleet, with faults, checking safety after
// every action. It writes the actions that took effect into *sc. rapid's
// Repeat keeps each action one group of draws, so shrinking deletes whole
// actions; an action not applicable in the current state is skipped.
func (h *harness) randomPhase(t *rapid.T, sc *script) {
	var made []int
	ch := recorder{chooser{t}, &made}
	slots := actionSlots
	if h.v.weights != nil {
		slots = slotsOf(*h.v.weights)
	}
	slot := rapid.IntRange(0, len(slots)-1)
	t.Repeat(map[string]func(*rapid.T){
		"": func(t *rapid.T) {
			if err := h.checkSafety(); err != nil {
				t.Fatalf("%v\ntrace:\n%s", err, h.report())
			}
		},
		"act": func(t *rapid.T) {
			a := slots[slot.Draw(t, "action")]
			made = nil
			if !h.act(ch, a) {
				t.Skip("not applicable now")
			}
			*sc = append(*sc, action{a, made})
		},
	})
}

// act performs action a with choices from ch; it reports false, having done
// nothing, when a is not applicable in the current state.
func (h *harness) act(ch sim.Chooser, a int) bool {
	if h.grp != nil || h.dl != nil {
		h.withChooser(ch)
		defer h.withChooser(nil)
	}
	if h.v.promptWrites {
		ch = promptWrites{ch}
	}
	s := h.s
	switch a {
	case actStep:
		return h.step(ch)
	case actTick:
		if !s.Tick() {
			return false
		}
		h.event("tick")
		if h.wake != nil {
			h.wakeArrive() // time passed: what the net action left in flight arrives, in order
		}
	case actNet:
		if h.wake != nil && ch.Choose("network", 2) == 1 {
			return h.wakeAct(ch)
		}
		if s.Messages() == 0 {
			return false
		}
		k := ch.Choose("message", s.Messages())
		if ch.Choose("drop", 2) == 1 {
			s.Drop(k)
			h.event("drop message %d", k)
		} else {
			s.Deliver(k)
			h.event("deliver message %d", k)
		}
	case actTimeout:
		reqs := s.Requests()
		if len(reqs) == 0 {
			return false
		}
		y := reqs[ch.Choose("request", len(reqs))]
		h.event("timeout %v", y)
		s.Timeout(y, ch)
	case actFault:
		return h.fault(ch)
	case actCut:
		return h.cutLegacy(ch)
	}
	return true
}

// step lets one process move: rapid picks a process by its fixed index, then
// one of its goroutines that can pass a yield point. Naming the process
// rather than a position among everything runnable keeps the rest of a
// counterexample meaning the same when the shrinker deletes an earlier
// step. With nothing runnable anywhere, time passes to the next deadline.
func (h *harness) step(ch sim.Chooser) bool {
	s := h.s
	ys := s.Runnable()
	if len(ys) == 0 {
		return h.stepAny(ch)
	}
	pr := h.procs[ch.Choose("process", len(h.procs))]
	var mine []*sim.Yield
	for _, y := range ys {
		if y.Proc == pr.sp {
			mine = append(mine, y)
		}
	}
	if len(mine) == 0 {
		return false
	}
	if h.traced {
		h.event("runnable %v", mine)
	}
	h.grant(mine[ch.Choose("yield", len(mine))], ch)
	return true
}

// pick returns the process at a fixed index rapid draws, or nil if it has
// crashed (the fault is then not applicable).
func (h *harness) pick(ch sim.Chooser) *proc {
	pr := h.procs[ch.Choose("process", len(h.procs))]
	if pr.sp.Crashed() {
		return nil
	}
	return pr
}

// live returns the processes that have not crashed.
func (h *harness) live() []*proc {
	var out []*proc
	for _, pr := range h.procs {
		if !pr.sp.Crashed() {
			out = append(out, pr)
		}
	}
	return out
}

// othersLive reports whether a process other than pr's has a live
// goroutine: a crash of pr's process leaves a process running even where
// that process has more than two goroutines (cohorttransfer_test.go's
// successor process has three).
func (h *harness) othersLive(pr *proc) bool {
	for _, q := range h.live() {
		if q.sp != pr.sp {
			return true
		}
	}
	return false
}

// signed draws a value in [-bound, bound] in steps of unit, shrinking
// towards 0.
func signed(ch sim.Chooser, label string, bound, unit time.Duration) time.Duration {
	b := int(bound / unit)
	v := ch.Choose(label, 2*b+1) // 0, 1, 2, 3, 4 … → 0, 1, −1, 2, −2 …
	if v%2 == 0 {
		return -time.Duration(v/2) * unit
	}
	return time.Duration(v/2+1) * unit
}

// fault injects one fault: a client clock skew within ±clientSkew, a replica
// clock skew within ±replicaSkew (so two servers' clocks differ by at most
// maxServerSkew, the bound the lease assumes), a pause of a process beyond
// the TTL, a crash (refused while two goroutines or fewer are live, or
// when every live one is the crashed process's), a forced timestamp
// collision (two processes' clocks made to read the same), the fleet's own
// extraFault, or a step of a process's wall clock by up to 2×TTL either way
// (NTP, an operator), which moves its wall time and not its elapsed time.
func (h *harness) fault(ch sim.Chooser) bool {
	if h.v.onlyExtraFault {
		return h.f.extraFault(h, ch)
	}
	live := h.live()
	switch ch.Choose("fault", 7) {
	case 0:
		pr := h.pick(ch)
		if pr == nil {
			return false
		}
		d := signed(ch, "skew", clientSkew, time.Millisecond)
		h.s.SetSkew(pr.sp, d)
		h.event("skew %s by %v", pr.sp.Name, d)
	case 1:
		i := ch.Choose("replica", h.s.Cluster().Config().Replicas)
		d := signed(ch, "skew", replicaSkew, time.Millisecond)
		h.s.SetReplicaSkew(i, d)
		h.event("skew replica %d by %v", i, d)
	case 2:
		pr := h.pick(ch)
		if pr == nil {
			return false
		}
		d := ttl + time.Duration(ch.Choose("extra", 61))*100*time.Millisecond
		h.s.Pause(pr.sp, d)
		h.event("pause %s for %v", pr.sp.Name, d)
	case 3:
		if h.v.noCrash || len(live) <= 2 {
			return false
		}
		pr := h.pick(ch)
		if pr == nil || !h.othersLive(pr) {
			return false
		}
		h.event("crash %s", pr.sp.Name)
		h.s.Crash(pr.sp)
	case 4:
		if len(live) < 2 {
			return false
		}
		a := ch.Choose("process", len(live))
		b := (a + 1 + ch.Choose("other", len(live)-1)) % len(live)
		h.s.SetSkew(live[a].sp, live[b].sp.Skew())
		h.event("collide %s with %s", live[a].sp.Name, live[b].sp.Name)
	case 5:
		if h.f.extraFault == nil {
			return false
		}
		return h.f.extraFault(h, ch)
	case 6:
		pr := h.pick(ch)
		if pr == nil {
			return false
		}
		d := signed(ch, "step", 2*ttl, ttl/4)
		h.s.StepWall(pr.sp, d)
		h.event("step %s's wall clock by %v", pr.sp.Name, d)
	}
	return true
}

// promptWrites makes the benign "write replicas" choice (every replica
// the coordinator reaches applies the write at once) and passes every other
// choice on (variant.promptWrites).
type promptWrites struct{ sim.Chooser }

func (p promptWrites) Choose(label string, n int) int {
	if label == "write replicas" {
		return 0
	}
	return p.Chooser.Choose(label, n)
}

// zeroChooser always makes the benign choice: every replica applies a write
// at once, reads ask the first R replicas.
type zeroChooser struct{}

func (zeroChooser) Choose(string, int) int { return 0 }

var _ sim.Chooser = zeroChooser{}
