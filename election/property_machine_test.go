package election

import (
	"fmt"
	"time"

	"pgregory.net/rapid"

	"github.com/lockstep-go/lockstep/model/sim"
)

// The random phase's actions and faults, and the quiet phase, of the
// election's model check (property_test.go).

// chooser lets rapid make the scheduler's choices, shrinking towards 0.
type chooser struct{ t *rapid.T }

func (c chooser) Choose(label string, n int) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(c.t, label)
}

// Actions of the random phase, weighted towards steps as propertytests'.
const (
	actStep = iota
	actTick
	actNet
	actTimeout
	actFault
)

var actSlots = []int{actStep, actStep, actStep, actStep, actStep, actStep, actStep, actStep, actStep, actStep, actStep, actStep,
	actTick, actTick, actTick, actNet, actNet, actTimeout, actFault}

// act performs one action; false means not applicable now.
func (h *elHarness) act(ch sim.Chooser, a int) bool {
	s := h.s
	switch a {
	case actStep:
		return h.step(ch)
	case actTick:
		if !s.Tick() {
			return false
		}
	case actNet:
		if s.Messages() == 0 {
			return false
		}
		k := ch.Choose("message", s.Messages())
		if ch.Choose("drop", 2) == 1 {
			s.Drop(k)
		} else {
			s.Deliver(k)
		}
	case actTimeout:
		reqs := s.Requests()
		if len(reqs) == 0 {
			return false
		}
		s.Timeout(reqs[ch.Choose("request", len(reqs))], ch)
	case actFault:
		return h.fault(ch)
	}
	return true
}

// step lets one process move: rapid picks a process by its index, then one
// of its runnable yields, so that a shrunk counterexample keeps its meaning
// when an earlier step is deleted. With nothing runnable, time passes.
func (h *elHarness) step(ch sim.Chooser) bool {
	ys := h.s.Runnable()
	if len(ys) == 0 {
		return h.s.Step(ch)
	}
	procs := h.s.Processes()
	p := procs[ch.Choose("process", len(procs))]
	var mine []*sim.Yield
	for _, y := range ys {
		if y.Proc == p {
			mine = append(mine, y)
		}
	}
	if len(mine) == 0 {
		return false
	}
	h.s.Grant(mine[ch.Choose("yield", len(mine))], ch)
	return true
}

// fault skews a process's or a replica's clock, steps a wall clock, pauses
// a process beyond the lock's TTL, or crashes one (keeping two candidates).
func (h *elHarness) fault(ch sim.Chooser) bool {
	c := h.cands[ch.Choose("candidate", len(h.cands))]
	if c.sp.Crashed() {
		return false
	}
	ms := func(label string, bound time.Duration) time.Duration {
		n := int(bound / time.Millisecond)
		return time.Duration(ch.Choose(label, 2*n+1)-n) * time.Millisecond
	}
	switch ch.Choose("fault", 5) {
	case 0:
		h.s.SetSkew(c.sp, ms("skew", clientSkew))
	case 1:
		h.s.SetReplicaSkew(ch.Choose("replica", h.s.Cluster().Config().Replicas), ms("skew", replicaSkew))
	case 2:
		h.s.StepWall(c.sp, ms("step", 2*lockTTL))
	case 3:
		d := lockTTL + time.Duration(ch.Choose("extra", 31))*100*time.Millisecond
		h.event("pause %s for %v", c.sp.Name, d)
		h.s.Pause(c.sp, d)
	case 4:
		live := 0
		for _, o := range h.cands {
			if !o.sp.Crashed() {
				live++
			}
		}
		if live <= 2 {
			return false
		}
		h.event("crash %s", c.sp.Name)
		h.s.Crash(c.sp)
	}
	return true
}

// quietPhase runs the processes fairly, round robin, with no fault, every
// replica answering and every message in flight delivered, for quietLength of virtual time, checking safety
// after every grant. Someone must lead during it: the faults of the random
// phase may have crashed a leader or left its cells behind, and the lease
// and the TTL must make way for a successor.
func (h *elHarness) quietPhase() error {
	start, wins := h.s.Now(), h.wins
	procs := h.s.Processes()
	next := 0
	for h.s.Now()-start < quietLength.Microseconds() {
		for h.s.Messages() > 0 {
			h.s.Deliver(0) // the network works again: what is in flight arrives
		}
		ys := h.s.Runnable()
		if len(ys) == 0 {
			if !h.s.Tick() {
				break
			}
			continue
		}
		var y *sim.Yield
		for y == nil {
			p := procs[next%len(procs)]
			next++
			for _, c := range ys {
				if c.Proc == p {
					y = c
					break
				}
			}
		}
		h.s.Grant(y, zeroChooser{})
		if err := h.check(); err != nil {
			return err
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.wins == wins {
		return fmt.Errorf("liveness: nobody led in %v of fault-free, fair scheduling", quietLength)
	}
	return nil
}

// quietLength is long enough for a crashed leader's cells to expire and a
// successor to win and lead.
var quietLength = 2*lockTTL + 2*leadStep + 5*time.Second

// zeroChooser makes the benign choice: every replica answers at once.
type zeroChooser struct{}

func (zeroChooser) Choose(string, int) int { return 0 }
