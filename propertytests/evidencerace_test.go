package propertytests

import (
	"fmt"
	"slices"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
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
// its next fast claim a holding and a think later, with its early token:
// drawn beside the claim, or taken from the values its first draw reserved
// ahead (a queuelock Locker's, as its claim reads of the id showed only
// its own records). The random phase then decides everything else: whose claim of
// the start wins, whose draw reads first, and whether the second process's
// claim lands before or after that holder's release.
//
// When the first process takes its locks in mode combined
// (migevidence_test.go), the second process's claim is of mode new and the
// schedule differs in three places. The combined holder's ownership begins
// with its legacy half's claim, made once its queue half is held (property
// 4 counts from the later half's claim, fencing_test.go), so it takes both
// halves while the second process thinks, and only its token draw waits,
// to read after the late claim's draw. Its background work (the legacy
// shadow delete) is done before the random phase. And a third migration
// process starts in the random phase, its first claim named behind the
// late claim.

// maxStepsToRace bounds the fixed schedule of variant.fromRace.
const maxStepsToRace = 2_000

// raceProc is the process that holds alone, then claims again late.
const raceProc = 1

// runToRace runs the first process alone until its first claim is made
// (firstClaims), then the second process alone — its runnable goroutines
// in turn, benign choices — until it has held the lock once and sent its
// next claim, checking safety after every step. When the first process
// takes its locks in mode combined, it takes both halves of the lock while
// the second process thinks (combinedHalves), its token draw left unsent.
func (h *harness) runToRace() error {
	if err := h.firstClaims(); err != nil {
		return err
	}
	s := h.s
	b := h.procs[raceProc]
	combinedFirst := h.combinedRacer()
	held, halves := false, false
	var first string // b's first lock's owner
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
		if holding {
			first = b.holding.Owner()
		}
		released := h.released[first]
		h.mu.Unlock()
		held = held || holding
		if combinedFirst && !halves && released {
			if err := h.combinedHalves(); err != nil {
				return err
			}
			halves = true
		}
		for _, y := range mine {
			if held && !holding && acquired == 1 && (halves || !combinedFirst) && isClaim(y) {
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

// combinedRacer reports whether the first process, the earlier holder of
// the race, takes its locks in mode combined (migevidence_test.go).
func (h *harness) combinedRacer() bool {
	sl, ok := h.procs[0].locker.(*switchLocker)
	return ok && sl.flagMode() == lockstep.ModeCombined
}

// firstClaims runs the first process alone until its first claim is made
// and waits unsent. A queue Locker's first claim is its first request,
// made as the run starts, so nothing runs for it; a migration Locker first
// reads the phase and writes its census entry, and this lets it, so that
// its first claim too is made at the start. A third migration Locker is
// left at its start: its first claim, made in the random phase, is named
// behind the late claim, which it would otherwise be ahead of in line.
func (h *harness) firstClaims() error {
	return h.runAlone(h.procs[0], "its first claim", func(ys []*sim.Yield) bool { return slices.ContainsFunc(ys, isClaim) })
}

// combinedHalves runs the first process, in mode combined, alone until it
// holds both halves of the lock and its token draw's read waits unsent:
// its ownership then begins (property 4 counts from the later half's
// claim, fencing_test.go) before the second process makes its late claim,
// while its token is still to be drawn, after that claim's draw.
func (h *harness) combinedHalves() error {
	return h.runAlone(h.procs[0], "its token draw", func(ys []*sim.Yield) bool {
		return slices.ContainsFunc(ys, func(y *sim.Yield) bool { return y.Kind == sim.Read && y.Table == clock.DefaultGlobalTable })
	})
}

// runAlone runs pr alone — its runnable goroutines in turn, benign choices,
// no time passing — until stop reports true of its runnable yields,
// checking safety after every step; what names that point for errors.
func (h *harness) runAlone(pr *proc, what string, stop func([]*sim.Yield) bool) error {
	for steps := 0; ; steps++ {
		if steps > maxStepsToRace {
			return fmt.Errorf("%s did not reach %s within %d steps", pr.sp.Name, what, maxStepsToRace)
		}
		var mine []*sim.Yield
		for _, y := range h.s.Runnable() {
			if y.Proc == pr.sp {
				mine = append(mine, y)
			}
		}
		if stop(mine) {
			return nil
		}
		if len(mine) == 0 {
			return fmt.Errorf("%s cannot run before %s", pr.sp.Name, what)
		}
		h.grant(mine[0], zeroChooser{})
		if err := h.checkSafety(); err != nil {
			return fmt.Errorf("%w (before %s's %s)\ntrace:\n%s", err, pr.sp.Name, what, h.report())
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
// flight: that process's draw beside it, if it sent one, runs to its end
// (its read misses every draw to come), then the first process alone runs until it holds
// the lock, its own draw reading after the second's (a combined holder
// until its background work is done too). The random phase starts there.
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
	if h.combinedRacer() {
		// The combined lock's background work, its legacy shadow delete
		// among it, is done before the random phase: what is left of the
		// holder's part of the race is its work and its release.
		if err := h.runAlone(a, "the end of its background work", func(ys []*sim.Yield) bool { return len(ys) == 0 }); err != nil {
			return err
		}
	}
	h.event("random phase from %s's hold, %s's claim in flight", a.sp.Name, b.sp.Name)
	return nil
}
