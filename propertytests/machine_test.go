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
	numActs
)

var actNames = [numActs]string{"step", "tick", "net", "timeout", "fault"}

// randomPhase lets rapid drive the fleet, with faults, checking safety after
// every action. It counts the actions that took effect in *actions.
func (h *harness) randomPhase(t *rapid.T, actions *int) {
	ch := chooser{t}
	m := map[string]func(*rapid.T){
		"": func(t *rapid.T) {
			if err := h.checkSafety(); err != nil {
				t.Fatalf("%v\ntrace:\n%s", err, h.report())
			}
		},
	}
	for a, name := range actNames {
		m[name] = func(t *rapid.T) {
			if !h.act(ch, a) {
				t.Skip("not applicable now")
			}
			*actions++
		}
	}
	t.Repeat(m)
}

// act performs action a with choices from ch; it reports false, having done
// nothing, when a is not applicable in the current state.
func (h *harness) act(ch sim.Chooser, a int) bool {
	s := h.s
	switch a {
	case actStep:
		if h.traced {
			if ys := s.Runnable(); len(ys) > 0 {
				h.event("runnable %v", ys)
			}
		}
		return s.Step(ch)
	case actTick:
		if !s.Tick() {
			return false
		}
		h.event("tick")
	case actNet:
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
	}
	return true
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
// clock skew within ±replicaSkew, a pause of a process beyond the TTL, a
// crash (keeping two processes alive), a forced timestamp collision (two
// processes' clocks made to read the same), or the fleet's own extraFault.
func (h *harness) fault(ch sim.Chooser) bool {
	live := h.live()
	switch ch.Choose("fault", 6) {
	case 0:
		pr := live[ch.Choose("process", len(live))]
		d := signed(ch, "skew", clientSkew, time.Millisecond)
		h.s.SetSkew(pr.sp, d)
		h.event("skew %s by %v", pr.sp.Name, d)
	case 1:
		i := ch.Choose("replica", h.s.Cluster().Config().Replicas)
		d := signed(ch, "skew", replicaSkew, time.Millisecond)
		h.s.SetReplicaSkew(i, d)
		h.event("skew replica %d by %v", i, d)
	case 2:
		pr := live[ch.Choose("process", len(live))]
		d := ttl + time.Duration(ch.Choose("extra", 61))*100*time.Millisecond
		h.s.Pause(pr.sp, d)
		h.event("pause %s for %v", pr.sp.Name, d)
	case 3:
		if h.v.noCrash || len(live) <= 2 {
			return false
		}
		pr := live[ch.Choose("process", len(live))]
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
	}
	return true
}

// zeroChooser always makes the benign choice: every replica applies a write
// at once, reads ask the first R replicas.
type zeroChooser struct{}

func (zeroChooser) Choose(string, int) int { return 0 }

var _ sim.Chooser = zeroChooser{}
