package propertytests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The rollback fleet (docs/algorithms.md, section 5.3, "Across modes", the
// legacy case): two migration Lockers at Queue.Evidence = EvidenceUse,
// with fencing, beside a phase Controller that moves the phase new →
// combined → legacy → combined → new, and so on, for the whole run, the
// runbook's way (flags first on the way back, the phase first on the way
// forward, with a Drain). So the processes take locks of mode new,
// combined and legacy on one id across rollbacks. A lock of mode new at
// EvidenceUse may take its token from values its process drew ahead
// (clock.Global.TakeAhead), but only from a draw whose read was sent after
// the answer of the phase read that admitted it
// (manager.Acquisition.AheadSince): a legacy holder writes no evidence,
// and its token is below the claim's only because the claim's draw
// follows the commit of new that admitted the claim. Property 4
// (fencing_test.go) is what must hold.
//
// The random phase from the start seldom leaves a process idle, with
// values drawn ahead, through a whole rollback while another takes a
// legacy lock and nobody records evidence of a later token; so the fleet
// starts it from a fixed schedule that does (variant.fromRollback,
// rollbackprefix_test.go). The control AheadBeforeAdmission
// (negative_admission_planted_test.go) must be caught there.

// rollbackProcess is a migration.Locker process whose flag the
// Controller moves (rollbackMover), starting at new. Its census TTL is the
// locks' TTL (4 s), the smallest the census accepts, not censusTTL: a
// change of its entry's shape is then written within TTL/30 (133 ms) of
// the entry's last write, and the Controller sees a flag moved while the
// process is idle within half the entry's lease window (625 ms), so that
// the prefix's rollback fits within half the locks' lease window
// (rollbackprefix_test.go).
var rollbackProcess = migrationKindCensus("legacy|combined|new", [2]lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeNew},
	func(int) lockstep.Mode { return lockstep.ModeNew }, false, nil, 0, func() time.Duration { return ttl })

// rollbackMoverKind is the Controller: a process with no Locker.
var rollbackMoverKind = kind{name: "controller/rollback", process: controllerName, user: moveRollbacks,
	new: func(*sim.Process, uint64, *clock.Global, knobs) (lockstep.Locker, func(context.Context) error, error) {
		return nil, nil, nil
	}}

// rollbackFleet is not in fleets: it has a test and a control of its own
// and takes no part in the sweep or the same-seed digests. Legacy runs in
// it, so it is checked for deadlock freedom, not starvation freedom.
var rollbackFleet = fleet{name: "migration/rollback at evidence",
	kinds: []kind{rollbackProcess, rollbackProcess, rollbackMoverKind}, setup: phaseAt(lockstep.ModeNew)}

// rollbackVariant runs the fleet at EvidenceUse from the prefix, with
// steps of work of 50 ms: a process's next lock then often comes within
// the phase cache (1 s) of the read that admitted its previous one, so
// that locks of mode new take values drawn ahead in correct runs too.
var rollbackVariant = variant{evidence: queuelock.EvidenceUse, stepOfWork: 50 * time.Millisecond, fromRollback: true}

// rollbackChecks and deepRollbackChecks are the fleet's rapid checks by
// default and under LOCKSTEP_DEEP=1.
const rollbackChecks, deepRollbackChecks = 60, 1000

// rollbackPoll is the Controller's Poll: how often it re-reads the census
// while a move is blocked.
const rollbackPoll = 100 * time.Millisecond

// How long the Controller leaves each phase before its next move, but in
// the prefix's rollback (its first cycle from a fixed prefix), which makes
// each move as soon as it can.
var rollbackStays = map[lockstep.Mode]time.Duration{
	lockstep.ModeNew:      3 * time.Second,
	lockstep.ModeCombined: time.Second,
	lockstep.ModeLegacy:   2 * time.Second,
}

// rollbackCycle is the Controller's cycle: each move's target, and
// whether the flags move before the phase (the way back) or after it
// (the way forward).
var rollbackCycle = []struct {
	target     lockstep.Mode
	flagsFirst bool
}{
	{lockstep.ModeCombined, true},
	{lockstep.ModeLegacy, true},
	{lockstep.ModeCombined, false},
	{lockstep.ModeNew, false},
}

// TestController_Rollback_NewLocksTakeNoValueDrawnAheadBeforeARollback
// runs the fleet (property 4 above all) and logs how many locks of mode
// new took their token from values drawn ahead, how many followed a
// legacy holder, and how many rollbacks the Controller completed. Under
// LOCKSTEP_DEEP=1 a run in which no lock of mode new took a value drawn
// ahead checked nothing of them, so the test fails then.
func TestController_Rollback_NewLocksTakeNoValueDrawnAheadBeforeARollback(t *testing.T) {
	st := checkFleetOf(t, rollbackFleet, rollbackVariant, rollbackChecks, deepRollbackChecks)
	r := st.rollback
	t.Logf("rollback: %d rollbacks completed (new → … → legacy → … → new); %d legacy locks; %d locks of mode new, %d of them took a value drawn ahead; %d followed a legacy holder, %d of those took a value drawn ahead",
		r.rollbacks, r.legacyLocks, r.newLocks, r.newAhead, r.afterLegacy, r.aheadAfterLegacy)
	if deep && (r.newAhead == 0 || r.afterLegacy == 0) {
		t.Errorf("the fleet never reached what it checks: %d locks of mode new took a value drawn ahead, %d followed a legacy holder", r.newAhead, r.afterLegacy)
	}
}

// rollbackStats counts what a run of the fleet saw.
type rollbackStats struct {
	// rollbacks: commits of new after a commit of legacy.
	rollbacks   int
	legacyLocks int
	// newLocks: locks of mode new; newAhead: those whose token no draw of
	// their own claim wrote (taken from values drawn ahead).
	newLocks, newAhead int
	// afterLegacy: locks of mode new whose previous holder, in ownership
	// order, held in mode legacy; aheadAfterLegacy: of them, those that
	// took a value drawn ahead.
	afterLegacy, aheadAfterLegacy int
}

func (s *rollbackStats) add(o rollbackStats) {
	s.rollbacks += o.rollbacks
	s.legacyLocks += o.legacyLocks
	s.newLocks += o.newLocks
	s.newAhead += o.newAhead
	s.afterLegacy += o.afterLegacy
	s.aheadAfterLegacy += o.aheadAfterLegacy
}

// rollbackState is what the fleet records; guarded by harness.mu.
type rollbackState struct {
	// puts holds "<process> <value>" for every write of the global cell
	// sent: a draw writes its block's last value; drawnAt, when (virtual
	// µs) each was sent.
	puts    map[string]bool
	drawnAt map[string]int64
	// last is each process's latest lock.
	last map[string]lockInfo
	// phase is the Controller's latest committed phase, flags the mode
	// it last set every flag to; sawLegacy: legacy was committed since
	// the last commit of new.
	phase, flags lockstep.Mode
	sawLegacy    bool
	stats        rollbackStats
}

// lockInfo is one lock a process took.
type lockInfo struct {
	owner string
	mode  lockstep.Mode
	token int64
}

// rollback returns h.rb, made on first use; the caller holds h.mu.
func (h *harness) rollback() *rollbackState {
	if h.rb == nil {
		h.rb = &rollbackState{puts: map[string]bool{}, drawnAt: map[string]int64{}, last: map[string]lockInfo{}, phase: lockstep.ModeNew, flags: lockstep.ModeNew}
	}
	return h.rb
}

// watchRollback makes h record the global cell's writes and count the
// fleet's locks; call it before anything is granted.
func (h *harness) watchRollback() {
	h.mu.Lock()
	h.rollback()
	h.onAcquired = h.noteRollbackLock
	h.mu.Unlock()
	prev := h.s.OnStore
	h.s.OnStore = func(e sim.StoreEvent) {
		prev(e)
		y := e.Yield
		if y.Table != clock.DefaultGlobalTable || y.Kind != sim.Put || e.Done || len(y.Cells) != 1 {
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		key := fmt.Sprintf("%s %d", y.Proc.Name, y.Cells[0].Timestamp)
		h.rb.puts[key], h.rb.drawnAt[key] = true, y.SentElapsed
	}
}

// aheadValues is how many values a draw beside a claim reserves ahead of
// the claim's own, one block with it, whose write is the block's last
// value: internal/queue's aheadClaims claims' worth of the claim's block,
// which is one value in this fleet (no local handoff).
const aheadValues = 64

// noteRollbackLock counts l, just acquired by pr (harness.onAcquired;
// the caller holds h.mu, after checkToken recorded l's handout). A token
// of mode new was drawn by its own claim when its process wrote it (a
// draw after the claim, or of a block of one) or 64 above it (a draw
// beside the claim, which reserves values ahead); else it was taken from
// values an earlier draw reserved. Blocks are disjoint, so no value
// taken ahead passes for either.
func (h *harness) noteRollbackLock(pr *proc, l lockstep.Lock) {
	rb := h.rb
	var token int64
	if f, ok := l.(lockstep.Fenced); ok {
		token = f.Token()
	}
	rb.last[pr.sp.Name] = lockInfo{owner: l.Owner(), mode: l.Mode(), token: token}
	switch l.Mode() {
	case lockstep.ModeLegacy:
		rb.stats.legacyLocks++
	case lockstep.ModeNew:
		rb.stats.newLocks++
		ahead := token > 0 && !rb.puts[fmt.Sprintf("%s %d", pr.sp.Name, token)] &&
			!rb.puts[fmt.Sprintf("%s %d", pr.sp.Name, token+aheadValues)]
		if ahead {
			rb.stats.newAhead++
		}
		if prev, ok := h.previousHolder(pr, l); ok && prev.mode == lockstep.ModeLegacy {
			rb.stats.afterLegacy++
			if ahead {
				rb.stats.aheadAfterLegacy++
			}
		}
	}
}

// previousHolder returns the handout of l's id that precedes l in
// ownership order (claimOrder), other than l's own; the caller holds h.mu.
func (h *harness) previousHolder(pr *proc, l lockstep.Lock) (handout, bool) {
	id, order := h.row(pr, l.ID()), h.claimOrder(pr, l)
	var prev handout
	found := false
	for _, o := range h.fencing.handed {
		if o.id == id && o.owner != l.Owner() && o.order < order && (!found || o.order > prev.order) {
			prev, found = o, true
		}
	}
	return prev, found
}

// moveRollbacks is the Controller's process: it moves the phase round
// rollbackCycle until the run ends, retrying a move the census blocks
// every rollbackPoll; in a run from the prefix (variant.fromRollback) its
// first cycle stays in no phase.
func moveRollbacks(h *harness, ctx context.Context, pr *proc) {
	clk := pr.sp.Clock()
	ctl, ok := fleetController(h, pr, rollbackPoll)
	if !ok {
		return
	}
	setFlags := func(m lockstep.Mode) {
		for _, q := range h.procs {
			if sl, ok := q.locker.(*switchLocker); ok {
				sl.flag.set(m)
			}
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		h.rollback().flags = m
		h.event("%s: every flag set to %v", controllerName, m)
	}
	set := func(target lockstep.Mode) bool {
		err := ctl.Set(ctx, target)
		h.mu.Lock()
		defer h.mu.Unlock()
		if err != nil {
			h.event("%s: Set(%v): %v", controllerName, target, err)
			return false
		}
		h.event("%s: phase %v committed", controllerName, target)
		rb := h.rollback()
		switch {
		case target == lockstep.ModeLegacy:
			rb.sawLegacy = true
		case target == lockstep.ModeNew && rb.sawLegacy:
			rb.sawLegacy = false
			rb.stats.rollbacks++
		}
		rb.phase = target
		return true
	}
	from, stay := lockstep.ModeNew, !h.v.fromRollback
	for ; ; stay = true {
		for _, mv := range rollbackCycle {
			if stay && clk.Sleep(ctx, rollbackStays[from]) != nil {
				return
			}
			if mv.flagsFirst {
				setFlags(mv.target)
			}
			for !set(mv.target) {
				if clk.Sleep(ctx, rollbackPoll) != nil {
					return
				}
			}
			if !mv.flagsFirst {
				setFlags(mv.target)
			}
			from = mv.target
		}
	}
}
