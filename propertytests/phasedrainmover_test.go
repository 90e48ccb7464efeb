package propertytests

import (
	"context"
	"errors"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model/sim"
)

// drainMover is the Controller of a drain run: a simulated process that
// moves the phase to new and back drainMoves times. Guarded by harness.mu.
type drainMover struct {
	h *harness
	// forbids is the mode the phase surely forbids now: legacy from the
	// acknowledgement of a commit of new until the next move back starts;
	// ModeUnknown otherwise (a move may be under way).
	forbids                  lockstep.Mode
	commits, refused, failed int
	// intents and reverts count the Controller's intent writes sent, and
	// the reverts among its phase writes (F written back right after an
	// intent F->T: its census check after the intent found a blocker, or
	// a store request failed).
	intents, reverts int
	last             migration.Phase // the last phase written
	done             bool
}

// phaseCellColumn is the column of migration's phase cell in the phase row
// (unexported there; fleet_phase.cql).
const phaseCellColumn = "phase"

// noteWrite counts the Controller's phase writes as they reach the
// replicas; the caller holds h.mu.
func (d *drainMover) noteWrite(y *sim.Yield) {
	if y.Kind != sim.Put || y.Proc.Name != controllerName || y.Table != migration.DefaultPhaseTable {
		return
	}
	for _, c := range y.Cells {
		if c.Column != phaseCellColumn {
			continue // the announcement beside it
		}
		p, err := migration.ParsePhase(string(c.Value))
		switch {
		case err != nil:
			continue
		case p.Pending():
			d.intents++
		case d.last.Pending() && p.Mode == d.last.Mode:
			d.reverts++
		}
		d.last = p
	}
}

// startDrainMover adds the Controller to h's simulation, and the phase
// property to h's acquisitions: no lock is taken in legacy once the
// Controller was told its commit of new succeeded (docs/algorithms.md, section 7: every
// mode a live process may take a lock in lies in the phase's allowed set).
func startDrainMover(h *harness) (*drainMover, error) {
	p := h.s.AddProcess(controllerName)
	ctl, err := migration.NewController(p.Store(), &migration.ControllerOptions{Clock: p.Clock(), Drain: drainFor, Poll: drainPoll, TestingKnobs: h.knobs.migration})
	if err != nil {
		return nil, err
	}
	d := &drainMover{h: h}
	onStore := h.s.OnStore
	h.s.OnStore = func(e sim.StoreEvent) {
		if !e.Done {
			h.mu.Lock()
			d.noteWrite(e.Yield)
			h.mu.Unlock()
		}
		onStore(e)
	}
	h.mu.Lock()
	h.onAcquired = func(pr *proc, l lockstep.Lock) {
		if l.Mode() == d.forbids && d.forbids.Valid() {
			h.violate("phase: %s took %s in mode %v after the controller's commit of phase new was acknowledged", pr.sp.Name, l.Owner(), l.Mode())
		}
	}
	h.mu.Unlock()
	p.Go(func(ctx context.Context) {
		for i := range drainMoves {
			target := []lockstep.Mode{lockstep.ModeNew, lockstep.ModeCombined}[i%2]
			d.note(func() {
				if target == lockstep.ModeCombined {
					d.forbids = lockstep.ModeUnknown
				}
				// The operator fixes the drift before each move; more
				// may come at any moment.
				for _, pr := range h.procs {
					pr.locker.(*switchLocker).flag.set(lockstep.ModeCombined)
				}
			})
			err := ctl.Set(ctx, target)
			var me *migration.MoveError
			d.note(func() {
				switch {
				case err == nil:
					d.commits++
					if target == lockstep.ModeNew {
						d.forbids = lockstep.ModeLegacy
					}
					h.event("%s: phase %v committed", controllerName, target)
				case errors.As(err, &me):
					d.refused++
					h.event("%s: %v", controllerName, err)
				default:
					d.failed++
					h.event("%s: Set(%v): %v", controllerName, target, err)
				}
			})
			if ctx.Err() != nil || p.Clock().Sleep(ctx, drainPause) != nil {
				return
			}
		}
		d.note(func() { d.done = true })
	})
	h.s.Settle()
	return d, nil
}

func (d *drainMover) finished() bool {
	d.h.mu.Lock()
	defer d.h.mu.Unlock()
	return d.done
}

func (d *drainMover) note(f func()) {
	d.h.mu.Lock()
	defer d.h.mu.Unlock()
	f()
}
