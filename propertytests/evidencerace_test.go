package propertytests

import (
	"fmt"

	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The race evidence is for (evidence_test.go): a claim B sent after an
// earlier holder A's claim, while A's token draw is still in flight, whose
// draw's read is served before A's draw writes, and which wins once A has
// released. The random phase from a run's start almost never builds it (none
// in 1,200 random phases of four processes at short holds: the processes'
// first claims are all sent at one instant, so none is later than another,
// and a later fast claim needs a process that held uncontended, then
// thought, while another's draw waited). So variant.fromRace starts the
// random phase from a state a fixed schedule reaches: every process's first
// fast claim sent at the start and nothing of it served, but for the second
// process, which takes the lock alone, works, releases, thinks, and sends
// its next fast claim (and starts its draw beside it) a holding and a think
// later. The random phase then decides everything else: whose claim of
// the start wins, whose draw reads first, and whether the second process's
// claim lands before or after that holder's release.

// maxStepsToRace bounds the fixed schedule of variant.fromRace.
const maxStepsToRace = 2_000

// raceProc is the process that holds alone, then claims again late.
const raceProc = 1

// runToRace runs the second process alone — its runnable goroutines in
// turn, benign choices — until it has held the lock once and sent its next
// claim, checking safety after every step.
func (h *harness) runToRace() error {
	s := h.s
	b := h.procs[raceProc]
	held := false
	for steps := 0; ; steps++ {
		if steps > maxStepsToRace {
			return fmt.Errorf("%s sent no second claim within %d steps", b.sp.Name, maxStepsToRace)
		}
		var mine []*sim.Yield
		for _, y := range s.Runnable() {
			if y.Proc == b.sp {
				mine = append(mine, y)
			}
		}
		h.mu.Lock()
		holding, acquired := b.holding != nil, b.acquired
		h.mu.Unlock()
		held = held || holding
		for _, y := range mine {
			if held && !holding && acquired == 1 && isClaim(y) {
				// Sent, applied by no replica yet: its deliveries are the
				// random phase's to make.
				h.grant(y, unappliedWrite{})
				return h.raceDraws()
			}
		}
		switch {
		case len(mine) > 0:
			h.grant(mine[0], zeroChooser{})
		case s.Messages() > 0:
			s.Cluster().DeliverAll()
		case !s.Tick():
			return fmt.Errorf("nothing can run before %s's second claim", b.sp.Name)
		}
		if err := h.checkSafety(); err != nil {
			return fmt.Errorf("%w (before %s's second claim)\ntrace:\n%s", err, b.sp.Name, h.report())
		}
	}
}

// isClaim reports whether y is a claim's write not yet sent: a put of an
// owner cell of the queue lock.
func isClaim(y *sim.Yield) bool {
	if y.Kind != sim.Put || y.Table != queuelock.DefaultTable {
		return false
	}
	for _, c := range y.Cells {
		if isOwnerCell(y.Table, c.Column) && c.Value != nil {
			return true
		}
	}
	return false
}

// unappliedWrite is the benign chooser but for a write's replicas, where it
// picks the last set: none (sim's writeSets), so the write waits for its
// deliveries.
type unappliedWrite struct{}

func (unappliedWrite) Choose(label string, n int) int {
	if label == "write replicas" {
		return n - 1
	}
	return 0
}

// raceDraws continues runToRace once the second process's claim is in
// flight: that process's draw beside it runs to its end (its read misses
// every draw to come), then the first process alone runs until it holds
// the lock, its own draw reading after the second's. The random phase
// starts there.
func (h *harness) raceDraws() error {
	s := h.s
	a, b := h.procs[0], h.procs[raceProc]
	for _, pr := range []*proc{b, a} {
		for steps := 0; ; steps++ {
			if steps > maxStepsToRace {
				return fmt.Errorf("%s did not settle within %d steps", pr.sp.Name, maxStepsToRace)
			}
			h.mu.Lock()
			done := pr == a && pr.holding != nil
			h.mu.Unlock()
			if done {
				break
			}
			var mine []*sim.Yield
			for _, y := range s.Runnable() {
				if y.Proc == pr.sp {
					mine = append(mine, y)
				}
			}
			if len(mine) == 0 {
				if pr == b {
					break
				}
				return fmt.Errorf("%s cannot run before it holds", pr.sp.Name)
			}
			h.grant(mine[0], zeroChooser{})
			if err := h.checkSafety(); err != nil {
				return fmt.Errorf("%w (before the random phase)\ntrace:\n%s", err, h.report())
			}
		}
	}
	h.event("random phase from %s's hold, %s's claim in flight", a.sp.Name, b.sp.Name)
	return nil
}
