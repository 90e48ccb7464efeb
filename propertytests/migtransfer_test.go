package propertytests

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model/sim"
)

// The migration transfer fleet (docs/algorithms.md, sections 7.4 and 8.7,
// Lemma 13): the transfer fleet's givers and successor as
// migration.Lockers, beside a phase Controller that moves the phase new →
// combined → new … for the whole run, the runbook's way (flags to combined,
// then the phase, with a Drain; the phase to new, then the flags). So
// handovers meet every boundary: a giver shares a lock taken in mode new
// just before its flag went combined, the successor adopts while the
// Controller drains, and a giver's combined lock is refused by Share. The
// random phase steps the Controller like any process, and flips flags
// (switchMode) at any moment. The properties, besides the harness's and
// the transfer fleet's (exclusion, leases, ownership, T1):
//
//   - phase: no lock is taken, adopted or worked on in mode new once the
//     Controller's commit of phase combined was acknowledged (and before
//     its next move to new began): Theorem 9 for Lock and, by Lemma 13,
//     for Adopt, whose lock counts in the receiver's census.
//
// The successor holds an adopted lock for migSuccessorSteps steps, longer
// than a drain takes once the giver left, so that an adoption the census
// does not see is still held when the Controller commits past it.
//
// The control (negative_migtransfer_planted_test.go): AdoptWithoutCensus,
// caught by the phase property.

// migSuccessorSteps is how many steps of work the successor does with an
// adopted lock.
const migSuccessorSteps = 4

// How long the Controller leaves each phase between moves.
const (
	moverNewFor      = 4 * time.Second // phase new, flags new
	moverCombinedFor = time.Second     // phase combined
)

// migTaker is a migration.Locker process whose flag starts at new and that
// switchMode flips between new and combined.
var migTaker = migrationKind("new|combined", [2]lockstep.Mode{lockstep.ModeNew, lockstep.ModeCombined},
	func(int) lockstep.Mode { return lockstep.ModeNew }, false)

var (
	migGiverKind     = kind{name: "migration/giver", mode: lockstep.ModeNew, new: migTaker.new, user: transferGiver}
	migSuccessorKind = kind{name: "migration/successor", mode: lockstep.ModeNew, new: migTaker.new, user: migSuccessor}
	// phaseMoverKind is the Controller: a process with no Locker.
	phaseMoverKind = kind{name: "controller", process: controllerName, user: movePhases,
		new: func(*sim.Process, uint64, *clock.Global, knobs) (lockstep.Locker, func(context.Context) error, error) {
			return nil, nil, nil
		}}
)

// migTransferFleet is not in fleets: it has a test and a control of its own
// and takes no part in the sweep or the same-seed digests. The successor
// is last, as the transfer fleet's code expects.
var migTransferFleet = fleet{name: "migration/transfer", kinds: []kind{migGiverKind, migGiverKind, phaseMoverKind, migSuccessorKind},
	transfer: true, extraFault: switchMode, setup: phaseAt(lockstep.ModeNew)}

func TestMigrationTransferFleet_HandoversAcrossPhaseMovesKeepExclusionAndThePhase(t *testing.T) {
	checkMigTransfer(t, variant{})
}

// The schedules the AdoptWithoutCensus control searches, without fencing:
// correct Lockers must pass them too.
func TestMigrationTransferFleet_WithoutFencing(t *testing.T) {
	checkMigTransfer(t, variant{noFencing: true, noLeaseCheck: true})
}

// checkMigTransfer is checkFleetVariant for the fleet, which is not in
// fleets.
func checkMigTransfer(t *testing.T, v variant) {
	defer rapidChecks(t, quickFleetChecks, deepChecks)()
	var st stats
	var last script
	rapid.Check(t, fleetProperty(t, migTransferFleet, v, &st, &last))
	t.Logf("%d runs, %d random actions, %d acquisitions; handovers: %d tokens shared, %d adopted",
		st.runs, st.actions, st.acquisitions, st.handovers, st.adoptions)
	if st.adoptions == 0 {
		t.Error("no adoption in any run: the fleet does not exercise handovers")
	}
}

// migSuccessor is the transfer fleet's successor holding each adopted lock
// for migSuccessorSteps steps.
func migSuccessor(h *harness, ctx context.Context, pr *proc) {
	h.mu.Lock()
	h.tr.successorSteps = migSuccessorSteps
	h.mu.Unlock()
	successor(h, ctx, pr)
}

// holdAdopted is workAndRelease for steps steps of work.
func (h *harness) holdAdopted(ctx context.Context, pr *proc, l lockstep.Lock, steps int) bool {
	clk := pr.sp.Clock()
	for range steps {
		select {
		case <-l.Lost():
		default:
			h.work(pr, l)
			if clk.Sleep(ctx, workStep) != nil {
				return false
			}
			continue
		}
		break
	}
	h.releasing(pr)
	err := l.Unlock(context.WithoutCancel(ctx))
	if err != nil && !errors.Is(err, lockstep.ErrLost) && clk.Sleep(ctx, poll) == nil {
		_ = l.Unlock(context.WithoutCancel(ctx))
	}
	h.releaseDone(l)
	return true
}

// movePhases is the Controller's process: it installs the phase property
// and moves the phase combined, new, combined, … until the run ends.
func movePhases(h *harness, ctx context.Context, pr *proc) {
	clk := pr.sp.Clock()
	ctl, ok := fleetController(h, pr, drainPoll)
	if !ok {
		return
	}
	// forbidsNew: the phase surely forbids new, from the acknowledgement of
	// a commit of combined until the next move to new begins. Guarded by
	// h.mu.
	forbidsNew := false
	h.mu.Lock()
	h.onAcquired = func(p *proc, l lockstep.Lock) {
		if forbidsNew && l.Mode() == lockstep.ModeNew {
			h.violate("phase: %s took %s in mode new after the controller's commit of phase combined was acknowledged", p.sp.Name, l.Owner())
		}
	}
	h.onWork = func(p *proc, l lockstep.Lock) {
		if forbidsNew && l.Mode() == lockstep.ModeNew {
			h.violate("phase: %s works on %s, held in mode new with Lost() open, after the controller's commit of phase combined was acknowledged",
				p.sp.Name, l.Owner())
		}
	}
	h.mu.Unlock()
	setFlags := func(m lockstep.Mode) {
		for _, q := range h.procs {
			if sl, ok := q.locker.(*switchLocker); ok {
				sl.flag.set(m)
			}
		}
		h.mu.Lock()
		h.event("%s: every flag set to %v", controllerName, m)
		h.mu.Unlock()
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
		if target == lockstep.ModeCombined {
			forbidsNew = true
		}
		return true
	}
	for {
		if clk.Sleep(ctx, moverNewFor) != nil {
			return
		}
		setFlags(lockstep.ModeCombined) // the way back: flags first, then the phase
		set(lockstep.ModeCombined)
		if clk.Sleep(ctx, moverCombinedFor) != nil {
			return
		}
		h.mu.Lock()
		forbidsNew = false
		h.mu.Unlock()
		if set(lockstep.ModeNew) { // the way forward: the phase first, then the flags
			setFlags(lockstep.ModeNew)
		}
	}
}

// The fleet does what its test claims: over seeded runs (a random phase
// of 600 actions, then the quiet phase) the Controller commits both phases, the successor adopts, and
// Adopt is refused for the mode at least once (a token shared in mode new
// reaching a successor whose flag went combined).
func TestMigrationTransferFleet_HandoversMeetPhaseMoves(t *testing.T) {
	var sum map[string]int
	for seed := range uint64(10) {
		var err error
		synctestRun(t, func() { sum, err = migTransferRun(seed, sum) })
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	t.Logf("%v", sum)
	for _, k := range []string{"phase combined committed", "phase new committed", " adopted ", "Adopt of", "incompatible lock mode"} {
		if sum[k] == 0 {
			t.Errorf("no %q in any run: %v", k, sum)
		}
	}
}

// migTransferRun runs the fleet from seed for 600 random actions and the
// quiet phase, and adds to sum how many trace lines hold each marker.
func migTransferRun(seed uint64, sum map[string]int) (map[string]int, error) {
	if sum == nil {
		sum = map[string]int{}
	}
	h, err := newHarness(migTransferFleet, variant{}, true)
	if err != nil {
		return sum, err
	}
	defer h.close()
	rnd := rand.New(rand.NewPCG(seed, 17))
	draw := weightedDraw([numActs]int{actStep: 12, actTick: 3, actNet: 2, actTimeout: 1, actFault: 1}, rnd.IntN)
	for range 600 {
		h.act(randChooser{rnd}, draw())
		if err := h.checkSafety(); err != nil {
			return sum, fmt.Errorf("%w\ntrace:\n%s", err, h.report())
		}
	}
	if err := h.quietPhase(); err != nil {
		return sum, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, line := range h.full {
		for _, k := range []string{"phase combined committed", "phase new committed", " adopted ", "Adopt of", "incompatible lock mode"} {
			if strings.Contains(line, k) {
				sum[k]++
			}
		}
	}
	return sum, nil
}

// fleetController is the Controller a fleet's Controller process moves the
// phase with, draining for drainFor and re-reading the census every poll;
// false (a violation recorded) when it cannot be made.
func fleetController(h *harness, pr *proc, poll time.Duration) (*migration.Controller, bool) {
	ctl, err := migration.NewController(pr.sp.Store(), &migration.ControllerOptions{Clock: pr.sp.Clock(), Drain: drainFor, Poll: poll,
		TestingKnobs: h.knobs.migration})
	if err != nil {
		h.mu.Lock()
		h.violate("setup: controller: %v", err)
		h.mu.Unlock()
		return nil, false
	}
	return ctl, true
}
