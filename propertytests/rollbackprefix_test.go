package propertytests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model/sim"
)

// The fixed schedule the rollback fleet's random phase starts from
// (variant.fromRollback; rollbackevidence_test.go). A process that takes
// a lock of mode new and then stays idle, its values drawn ahead unused,
// while the Controller rolls the phase back and another process takes a
// legacy lock, and that locks again in mode new once the phase is new
// again — with no evidence of a later token in the id's queue row — is
// what a value drawn ahead before the admission would be wrong for; the
// random phase from the start does not build it (each process keeps
// locking, and every lock of mode combined or new records evidence of
// its token). So the prefix, each process's goroutines granted in turn
// with benign choices, runs:
//
//  1. p0 alone, until it has taken and released a lock of mode new whose
//     draw beside the claim reserved values ahead;
//  2. the Controller alone, until it has committed combined and set every
//     flag to legacy (p0's census entry, no longer written, expires and
//     stops blocking the move);
//  3. p1 and the Controller, until p1 has taken and released a lock of
//     mode legacy, its token drawn after p0's values;
//  4. the Controller alone, until it has committed combined and new again
//     and set every flag to new (p1's entry expires in turn);
//  5. p0 alone, until its next claim, of mode new, is sent (the choice of
//     its token made: a draw beside it sent, or a value drawn ahead
//     taken).
//
// The random phase then decides the rest: whether p0's claim read comes
// before p1's next claim, which records evidence of its legacy token
// (every claim of a recording Locker carries the highest token its
// process drew), and whether p0 wins. p0's values drawn ahead
// are then some 20 s old, beyond half a lease window, so a run in which
// the admission rule is the only guard lifts the age limit too
// (queuelock's AheadPastWindow; negative_admission_planted_test.go).

// The rollback prefix's processes.
const (
	rollbackNewProc    = 0 // locks in mode new, then idles through the rollback
	rollbackLegacyProc = 1 // takes the legacy lock during it
	rollbackMoverProc  = 2 // the Controller
)

// maxStepsToRollback bounds each stage of the prefix.
const maxStepsToRollback = 20_000

// runToRollback runs the prefix, checking safety after every step.
func (h *harness) runToRollback() error {
	h.watchRollback()
	b, a, ctl := h.procs[rollbackNewProc], h.procs[rollbackLegacyProc], h.procs[rollbackMoverProc]
	released := func(p *proc) (lockInfo, bool) {
		l, ok := h.rb.last[p.sp.Name]
		return l, ok && p.holding == nil && h.released[l.owner]
	}
	if err := h.runOnly("its first lock released", []*proc{b}, func() bool { _, ok := released(b); return ok }); err != nil {
		return err
	}
	h.mu.Lock()
	first := h.rb.last[b.sp.Name]
	reserved := h.rb.puts[fmt.Sprintf("%s %d", b.sp.Name, first.token+aheadValues)]
	h.mu.Unlock()
	if first.mode != lockstep.ModeNew || !reserved {
		return fmt.Errorf("rollback prefix: %s's first lock %+v is not of mode new with values reserved ahead (%v)", b.sp.Name, first, reserved)
	}
	if err := h.runOnly("every flag set to legacy", []*proc{ctl}, func() bool { return h.rb.flags == lockstep.ModeLegacy }); err != nil {
		return err
	}
	if err := h.runOnly("a legacy lock released", []*proc{a, ctl}, func() bool { _, ok := released(a); return ok }); err != nil {
		return err
	}
	h.mu.Lock()
	legacy := h.rb.last[a.sp.Name]
	h.mu.Unlock()
	if legacy.mode != lockstep.ModeLegacy || legacy.token <= first.token+aheadValues {
		return fmt.Errorf("rollback prefix: %s's lock %+v is not of mode legacy with a token above %s's values drawn ahead (%d to %d)",
			a.sp.Name, legacy, b.sp.Name, first.token+1, first.token+aheadValues)
	}
	if err := h.runOnly("the phase new again, every flag new", []*proc{ctl}, func() bool {
		return h.rb.stats.rollbacks == 1 && h.rb.flags == lockstep.ModeNew
	}); err != nil {
		return err
	}
	var claim *sim.Yield
	if err := h.runOnly("its claim after the rollback", []*proc{b}, func() bool {
		claim = h.pendingClaim(b)
		return claim != nil
	}); err != nil {
		return err
	}
	h.grant(claim, zeroChooser{})
	if err := h.checkSafety(); err != nil {
		return fmt.Errorf("%w (sending %s's claim after the rollback)\ntrace:\n%s", err, b.sp.Name, h.report())
	}
	h.mu.Lock()
	h.event("random phase from the rollback: %s's claim sent, its values drawn ahead %d to %d, %s's legacy token %d above them",
		b.sp.Name, first.token+1, first.token+aheadValues, a.sp.Name, legacy.token)
	h.mu.Unlock()
	return nil
}

// pendingClaim returns a claim of pr's that waits to be sent, or nil.
func (h *harness) pendingClaim(pr *proc) *sim.Yield {
	for _, y := range h.s.Runnable() {
		if y.Proc == pr.sp && isClaim(y) {
			return y
		}
	}
	return nil
}

// runOnly grants the runnable goroutines of procs in turn, round-robin by
// process, with benign choices, delivering the messages in flight when
// none can run and moving time when none are left, until done (called
// with h.mu held) reports true; what names that point for errors.
func (h *harness) runOnly(what string, procs []*proc, done func() bool) error {
	s := h.s
	next := 0
	for steps := 0; ; steps++ {
		h.mu.Lock()
		ok := done()
		h.mu.Unlock()
		if ok {
			return nil
		}
		if steps > maxStepsToRollback {
			return fmt.Errorf("not %s within %d steps\ntrace:\n%s", what, maxStepsToRollback, h.report())
		}
		var mine []*sim.Yield
		for _, y := range s.Runnable() {
			for _, p := range procs {
				if y.Proc == p.sp {
					mine = append(mine, y)
				}
			}
		}
		switch {
		case len(mine) > 0:
			h.grant(roundRobin(mine, &next), zeroChooser{})
		case s.Messages() > 0:
			s.Cluster().DeliverAll()
		case !s.Tick():
			return fmt.Errorf("nothing can run before %s", what)
		}
		if err := h.checkSafety(); err != nil {
			return fmt.Errorf("%w (before %s)\ntrace:\n%s", err, what, h.report())
		}
	}
}

// The prefix reaches the schedule it is for: run on from it with p0's
// goroutines alone until p0 holds, p0's lock of mode new holds a token
// above p1's legacy one with correct Lockers — also with the age limit on
// values drawn ahead lifted (AheadPastWindow), which leaves the admission
// rule the only guard — and below it, caught by property 4, once the rule
// is planted away too (AheadBeforeAdmission).
func TestController_Rollback_PrefixReachesTheSchedule(t *testing.T) {
	for _, c := range []struct {
		name   string
		v      variant
		caught bool
	}{
		{"correct", rollbackVariant, false},
		{"AheadPastWindow", admissionVariant(false), false},
		{"AheadPastWindow+AheadBeforeAdmission", admissionVariant(true), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var tokenA, tokenB int64
			var err error
			synctestRun(t, func() { tokenA, tokenB, err = rollbackThenNew(c.v) })
			switch {
			case c.caught && (err == nil || !strings.HasPrefix(err.Error(), "fencing:")):
				t.Fatalf("want a fencing violation, got %v (legacy token %d, then new %d)", err, tokenA, tokenB)
			case c.caught:
				t.Logf("caught: %s", firstLine(err))
			case err != nil:
				t.Fatal(err)
			default:
				t.Logf("legacy token %d, then new %d", tokenA, tokenB)
			}
		})
	}
}

// admissionVariant is rollbackVariant with the age limit on values drawn
// ahead lifted, and, if planted, the admission rule planted away.
func admissionVariant(planted bool) variant {
	v := rollbackVariant
	v.bugs = switches{AheadPastWindow: true}
	if planted {
		v.plant = []defect{aheadBeforeAdmission}
	}
	return v
}

// rollbackThenNew runs the prefix, then p0 alone until it holds a lock of
// mode new, and returns p1's legacy token and that lock's, and the first
// safety violation, or an error if that lock's token is not above the
// legacy one.
func rollbackThenNew(v variant) (tokenA, tokenB int64, err error) {
	h, err := newHarness(rollbackFleet, v, true)
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		if cerr := h.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	b, a := h.procs[rollbackNewProc], h.procs[rollbackLegacyProc]
	h.mu.Lock()
	tokenA = h.rb.last[a.sp.Name].token
	h.mu.Unlock()
	err = h.runOnly("a lock of mode new after the rollback", []*proc{b}, func() bool {
		return b.holding != nil && b.holding.Mode() == lockstep.ModeNew
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	if l := h.rb.last[b.sp.Name]; l.mode == lockstep.ModeNew {
		tokenB = l.token
	}
	if err == nil && tokenB <= tokenA {
		err = fmt.Errorf("%s's lock of mode new holds token %d, not above %s's legacy token %d, and property 4 did not see it", b.sp.Name, tokenB, a.sp.Name, tokenA)
	}
	return tokenA, tokenB, err
}
