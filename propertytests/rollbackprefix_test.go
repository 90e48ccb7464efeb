package propertytests

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/lease"
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
// its token). So the prefix, the goroutines it names granted in turn with
// benign choices, runs:
//
//  1. p0 alone, until it has taken and released a lock of mode new whose
//     draw beside the claim reserved values ahead;
//  2. the Controller, and p0's goroutines but its user's (its census
//     heartbeat), until the Controller, making each move at once in its
//     first cycle, has set every flag to combined, committed combined
//     once p0's entry published combined (the prompt write after p0's
//     release reads the flag), set every flag to legacy and committed
//     legacy (combined → legacy forbids nothing);
//  3. p1, and p0's heartbeat, until p1 has taken and released a lock of
//     mode legacy, its token drawn after p0's values;
//  4. the Controller and both processes' heartbeats, until the Controller
//     has committed combined, set every flag to combined, committed new
//     once p1's entry published combined (the prompt write after p1's
//     release), and set every flag to new;
//  5. p0 alone, until its next claim, of mode new, is sent (the choice of
//     its token made: a draw beside it sent, or a value drawn ahead
//     taken).
//
// The census TTL of the fleet's processes (4 s) writes a changed entry
// within 133 ms of its last write, and the Controller re-reads a blocking
// census every 100 ms, so p0's claim is sent 500 ms of virtual time after
// the draw that reserved its values ahead: within half a lease window
// (625 ms), where the age limit on values drawn ahead lets them serve,
// and the admission rule alone refuses them (the control
// AheadBeforeAdmission; negative_admission_planted_test.go). The random
// phase then decides the rest: whether p0's claim read comes before p1's
// next claim, which records evidence of its legacy token (every claim of
// a recording Locker carries the highest token its process drew), and
// whether p0 wins.

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
	// user is the root of the user goroutines' labels, the same in every
	// process of the fleet (each is made alike), from p0's first claim.
	user := ""
	if err := h.runOnly("its first lock released", of(b), func() bool {
		if y := h.pendingClaim(b); y != nil && user == "" {
			user, _, _ = strings.Cut(y.Goroutine(), ".")
		}
		_, ok := released(b)
		return ok
	}); err != nil {
		return err
	}
	h.mu.Lock()
	first := h.rb.last[b.sp.Name]
	reserved := h.rb.puts[fmt.Sprintf("%s %d", b.sp.Name, first.token+aheadValues)]
	drawn := h.rb.drawnAt[fmt.Sprintf("%s %d", b.sp.Name, first.token+aheadValues)]
	h.mu.Unlock()
	if first.mode != lockstep.ModeNew || !reserved || user == "" {
		return fmt.Errorf("rollback prefix: %s's first lock %+v is not of mode new with values reserved ahead (%v), or its claim was not seen (user goroutine %q)",
			b.sp.Name, first, reserved, user)
	}
	bg := func(p *proc) func(*sim.Yield) bool { return background(p, user) }
	if err := h.runOnly("the phase legacy committed", anyOf(of(ctl), bg(b)), func() bool { return h.rb.phase == lockstep.ModeLegacy }); err != nil {
		return err
	}
	if err := h.runOnly("a legacy lock released", anyOf(of(a), bg(b)), func() bool { _, ok := released(a); return ok }); err != nil {
		return err
	}
	h.mu.Lock()
	legacy := h.rb.last[a.sp.Name]
	h.mu.Unlock()
	if legacy.mode != lockstep.ModeLegacy || legacy.token <= first.token+aheadValues {
		return fmt.Errorf("rollback prefix: %s's lock %+v is not of mode legacy with a token above %s's values drawn ahead (%d to %d)",
			a.sp.Name, legacy, b.sp.Name, first.token+1, first.token+aheadValues)
	}
	if err := h.runOnly("the phase new again, every flag new", anyOf(of(ctl), bg(a), bg(b)), func() bool {
		return h.rb.stats.rollbacks == 1 && h.rb.flags == lockstep.ModeNew
	}); err != nil {
		return err
	}
	h.mu.Lock()
	idle := h.rb.last[b.sp.Name] == first && b.holding == nil && !b.waiting
	h.mu.Unlock()
	if !idle {
		return fmt.Errorf("rollback prefix: %s did not idle through the rollback (its user goroutine, label root %q, ran)\ntrace:\n%s", b.sp.Name, user, h.report())
	}
	var claim *sim.Yield
	if err := h.runOnly("its claim after the rollback", of(b), func() bool {
		claim = h.pendingClaim(b)
		return claim != nil
	}); err != nil {
		return err
	}
	// The draw's write, whose send drawnAt records, is sent at the moment
	// of its read here: no time passes between them in the prefix.
	age, half := time.Duration(h.s.Now()-drawn)*time.Microsecond, lease.Config{TTL: ttl, MaxServerSkew: maxServerSkew}.Window()/2
	if age >= half {
		return fmt.Errorf("rollback prefix: %s's claim after the rollback is sent %v after the draw that reserved its values ahead, not within half a lease window (%v)\ntrace:\n%s",
			b.sp.Name, age, half, h.report())
	}
	h.grant(claim, zeroChooser{})
	if err := h.checkSafety(); err != nil {
		return fmt.Errorf("%w (sending %s's claim after the rollback)\ntrace:\n%s", err, b.sp.Name, h.report())
	}
	h.mu.Lock()
	h.event("random phase from the rollback: %s's claim sent %v after the draw that reserved its values drawn ahead %d to %d (half a lease window: %v), %s's legacy token %d above them",
		b.sp.Name, age, first.token+1, first.token+aheadValues, half, a.sp.Name, legacy.token)
	h.mu.Unlock()
	return nil
}

// of picks the goroutines of procs.
func of(procs ...*proc) func(*sim.Yield) bool {
	return func(y *sim.Yield) bool {
		return slices.ContainsFunc(procs, func(p *proc) bool { return y.Proc == p.sp })
	}
}

// background picks pr's goroutines but its user goroutine (label root
// user) and what that started: its Locker's census heartbeat and the like,
// which publish a flag moved while the process is idle.
func background(pr *proc, user string) func(*sim.Yield) bool {
	return func(y *sim.Yield) bool {
		root, _, _ := strings.Cut(y.Goroutine(), ".")
		return y.Proc == pr.sp && root != user
	}
}

// anyOf picks what any of picks picks.
func anyOf(picks ...func(*sim.Yield) bool) func(*sim.Yield) bool {
	return func(y *sim.Yield) bool {
		return slices.ContainsFunc(picks, func(p func(*sim.Yield) bool) bool { return p(y) })
	}
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

// runOnly grants the runnable goroutines that pick picks in turn,
// round-robin by process, with benign choices, delivering the messages in
// flight when none can run and moving time when none are left, until done
// (called with h.mu held) reports true; what names that point for errors.
func (h *harness) runOnly(what string, pick func(*sim.Yield) bool, done func() bool) error {
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
			if pick(y) {
				mine = append(mine, y)
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
// values drawn ahead lifted (AheadPastWindow) — and below it, caught by
// property 4, once the admission rule is planted away
// (AheadBeforeAdmission), with or without the age limit: p0's values are
// within it.
func TestController_Rollback_PrefixReachesTheSchedule(t *testing.T) {
	for _, c := range []struct {
		name   string
		v      variant
		caught bool
	}{
		{"correct", rollbackVariant, false},
		{"AheadPastWindow", admissionVariant(true, false), false},
		{"AheadBeforeAdmission", admissionVariant(false, true), true},
		{"AheadPastWindow+AheadBeforeAdmission", admissionVariant(true, true), true},
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

// admissionVariant is rollbackVariant with, if pastWindow, the age limit
// on values drawn ahead lifted, and, if planted, the admission rule
// planted away.
func admissionVariant(pastWindow, planted bool) variant {
	v := rollbackVariant
	v.bugs = switches{AheadPastWindow: pastWindow}
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
	err = h.runOnly("a lock of mode new after the rollback", of(b), func() bool {
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
