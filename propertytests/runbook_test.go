package propertytests

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/migration/census"
)

// controllerName is the simulated process that runs the phase controller in
// a rollout; only it may write the phase cell.
const controllerName = "controller"

// rolloutProcess takes its locks through a migration.Locker whose flag the
// runbook moves (not the random phase), starting at legacy.
var rolloutProcess = migrationKind("migrating", [2]lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeNew},
	func(int) lockstep.Mode { return lockstep.ModeLegacy }, false)

// rolloutFleet is a fleet that has never run the migration: no phase cell
// (phase legacy), every process configured legacy.
var rolloutFleet = fleet{name: "rollout", kinds: []kind{rolloutProcess, rolloutProcess, rolloutProcess}}

// Timing of the rollout script, in the controller's virtual time.
const (
	rolloutPoll = 500 * time.Millisecond // census polling and the pause between two flag flips
	awaitLimit  = 5 * time.Minute        // longest wait for the census to show a step done
	retryLimit  = 200                    // Set attempts per step (store errors, late refusals)
)

// rollout is the operator of the runbook (docs/migrating.md), run as one more
// simulated process (controllerName) beside the fleet, so every census read
// and phase write is a yield point the scheduler orders against the
// processes' lock traffic, and can be delayed, lost or timed out like theirs.
type rollout struct {
	h     *harness
	ctl   *migration.Controller
	store lockstep.Store // the controller process's connection
	clk   lockstep.Clock
	flags []*switchFlag

	mu sync.Mutex
	// reached lists the phases committed by the runbook's moves, in order.
	reached []lockstep.Mode
	// refused lists the moves tried too early that the controller refused,
	// naming the processes in the way; heldAcross counts those among their
	// blockers that were refused for a lock held in a mode they no longer
	// ran (they switched while holding it).
	refused    []*migration.MoveError
	heldAcross int
	// early counts moves tried too early that committed all the same, the
	// census having cleared by the controller's read (processes caught up
	// with a flip, released their locks, or expired). stale counts the
	// attempts made before the flip, staleRefused those refused: such a move
	// can commit only if every entry in its way expired first.
	early, stale, staleRefused int
	// late counts refusals of a runbook move made once the census had
	// cleared (retried): the entry of a process that caught up late.
	late int
	// shape is set once a move skipping combined was refused.
	shape    bool
	finished bool
	err      error
}

// startRollout adds the controller process to h's simulation and starts the
// runbook in it.
func startRollout(h *harness) (*rollout, error) {
	p := h.s.AddProcess(controllerName)
	ctl, err := migration.NewController(p.Store(), &migration.ControllerOptions{Clock: p.Clock(), Poll: rolloutPoll})
	if err != nil {
		return nil, err
	}
	r := &rollout{h: h, ctl: ctl, store: p.Store(), clk: p.Clock()}
	for _, pr := range h.procs {
		r.flags = append(r.flags, pr.locker.(*switchLocker).flag)
	}
	p.Go(func(ctx context.Context) {
		err := r.runbook(ctx)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.finished, r.err = true, err
	})
	h.s.Settle()
	return r, nil
}

func (r *rollout) done() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finished
}

// runbook is docs/migrating.md's rollout and rollback, step by step, with the
// unsafe moves an impatient operator would try on the way.
func (r *rollout) runbook(ctx context.Context) error {
	// Step 2: the fleet takes its locks through migration.Locker, flag at
	// legacy; the census shows it.
	if err := r.await(ctx, "a process using legacy", uses(lockstep.ModeLegacy)); err != nil {
		return err
	}
	// legacy -> new skips combined: refused for its shape, nothing written.
	if err := r.refuseShape(ctx, lockstep.ModeNew); err != nil {
		return err
	}
	// Step 3.
	if err := r.set(ctx, lockstep.ModeCombined); err != nil {
		return err
	}
	// Too early: processes still run legacy.
	if err := r.tooEarly(ctx, lockstep.ModeNew, lockstep.ModeLegacy, true); err != nil {
		return err
	}
	// Step 4. Still too early right after the flip: the census shows
	// processes configured legacy until their next heartbeat or Lock, and
	// holding legacy locks taken before their switch until they release.
	if err := r.flip(ctx, lockstep.ModeCombined); err != nil {
		return err
	}
	if err := r.tooEarly(ctx, lockstep.ModeNew, lockstep.ModeLegacy, false); err != nil {
		return err
	}
	// Step 5, once no entry uses legacy and combined locks are taken.
	if err := r.await(ctx, "no process using legacy", clears(lockstep.ModeNew)); err != nil {
		return err
	}
	if err := r.await(ctx, "a lock held in mode combined", holds(lockstep.ModeCombined)); err != nil {
		return err
	}
	if err := r.set(ctx, lockstep.ModeNew); err != nil {
		return err
	}
	// Step 6: new, until the census shows a lock taken in it.
	if err := r.flip(ctx, lockstep.ModeNew); err != nil {
		return err
	}
	if err := r.await(ctx, "a lock held in mode new", holds(lockstep.ModeNew)); err != nil {
		return err
	}
	// Rollback: the same steps backwards, with the same impatience.
	if err := r.tooEarly(ctx, lockstep.ModeCombined, lockstep.ModeNew, true); err != nil {
		return err
	}
	if err := r.flip(ctx, lockstep.ModeCombined); err != nil {
		return err
	}
	if err := r.tooEarly(ctx, lockstep.ModeCombined, lockstep.ModeNew, false); err != nil {
		return err
	}
	if err := r.await(ctx, "no process using new", clears(lockstep.ModeCombined)); err != nil {
		return err
	}
	if err := r.await(ctx, "a lock held in mode combined", holds(lockstep.ModeCombined)); err != nil {
		return err
	}
	if err := r.set(ctx, lockstep.ModeCombined); err != nil {
		return err
	}
	if err := r.flip(ctx, lockstep.ModeLegacy); err != nil {
		return err
	}
	if err := r.set(ctx, lockstep.ModeLegacy); err != nil {
		return err
	}
	return r.await(ctx, "a lock held in mode legacy", holds(lockstep.ModeLegacy))
}

// uses: some live entry may take or hold locks in mode m.
func uses(m lockstep.Mode) func([]census.Entry) bool {
	return func(es []census.Entry) bool {
		return slices.ContainsFunc(es, func(e census.Entry) bool { return slices.Contains(e.InUse(), m) })
	}
}

// clears: no live entry forbids entering phase target.
func clears(target lockstep.Mode) func([]census.Entry) bool {
	return func(es []census.Entry) bool { return len(migration.Blocking(es, target)) == 0 }
}

// holds: some live entry holds a lock taken in mode m.
func holds(m lockstep.Mode) func([]census.Entry) bool {
	return func(es []census.Entry) bool {
		return slices.ContainsFunc(es, func(e census.Entry) bool { return e.Held[m] > 0 })
	}
}

// await reads the census every rolloutPoll until cond holds.
func (r *rollout) await(ctx context.Context, what string, cond func([]census.Entry) bool) error {
	deadline := r.clk.Now() + awaitLimit.Microseconds()
	for {
		es, err := census.Read(ctx, r.store, "")
		if err == nil && cond(es) {
			r.event("census shows %s", what)
			return nil
		}
		if r.clk.Now() > deadline {
			return fmt.Errorf("rollout: the census never showed %s in %v (last: %v, %v)", what, awaitLimit, es, err)
		}
		if err := r.clk.Sleep(ctx, rolloutPoll); err != nil {
			return err
		}
	}
}

// flip moves every process's flag to m, one process per rolloutPoll, as a
// gradual flag rollout does; processes keep the locks they hold.
func (r *rollout) flip(ctx context.Context, m lockstep.Mode) error {
	for i, f := range r.flags {
		f.set(m)
		r.event("flag of p%d set to %v", i, m)
		if err := r.clk.Sleep(ctx, rolloutPoll); err != nil {
			return err
		}
	}
	return nil
}

// set moves the phase to target, retrying store errors and refusals (an
// entry the census still showed), then checks the committed phase.
func (r *rollout) set(ctx context.Context, target lockstep.Mode) error {
	for attempt := 0; ; attempt++ {
		err := r.ctl.Set(ctx, target)
		if err == nil {
			break
		}
		var me *migration.MoveError
		refused := errors.As(err, &me)
		if refused && me.Reason != "" || attempt == retryLimit || ctx.Err() != nil {
			return fmt.Errorf("rollout: Set(%v): %w", target, err)
		}
		r.event("Set(%v) failed, retrying: %v", target, err)
		if refused {
			r.mu.Lock()
			r.late++
			r.mu.Unlock()
		}
		if err := r.clk.Sleep(ctx, rolloutPoll); err != nil {
			return err
		}
	}
	p, err := r.get(ctx)
	if err != nil {
		return err
	}
	if p != (migration.Phase{Mode: target}) {
		return fmt.Errorf("rollout: Set(%v) returned nil, but the phase reads %v", target, p)
	}
	r.event("phase %v", p)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reached = append(r.reached, target)
	return nil
}

func (r *rollout) get(ctx context.Context) (migration.Phase, error) {
	for attempt := 0; ; attempt++ {
		p, err := r.ctl.Get(ctx)
		if err == nil || attempt == retryLimit || ctx.Err() != nil {
			return p, err
		}
	}
}

// refuseShape tries a move that skips combined; it must be refused for its
// shape, whatever the census says.
func (r *rollout) refuseShape(ctx context.Context, target lockstep.Mode) error {
	for attempt := 0; ; attempt++ {
		err := r.ctl.Set(ctx, target)
		var me *migration.MoveError
		switch {
		case errors.As(err, &me) && me.Reason != "" && len(me.Blockers) == 0:
			r.event("refused: %v", err)
			r.mu.Lock()
			defer r.mu.Unlock()
			r.shape = true
			return nil
		case err == nil || errors.As(err, &me) || attempt == retryLimit || ctx.Err() != nil:
			return fmt.Errorf("rollout: Set(%v) skipping combined = %v, want a refusal for its shape", target, err)
		}
	}
}

// tooEarly tries to enter phase target while the census shows a process
// using mode m, which target forbids. stale says the flags still give m, so
// the census will show it; otherwise (just after the flip) the attempt is
// made only if the census still shows m. The controller must refuse with a
// *MoveError naming processes that block it, unless the census cleared
// before its own read — then committing is right, and the move is counted
// in early.
func (r *rollout) tooEarly(ctx context.Context, target, m lockstep.Mode, stale bool) error {
	if stale {
		r.mu.Lock()
		r.stale++
		r.mu.Unlock()
	}
	for attempt := 0; ; attempt++ {
		if stale {
			if err := r.await(ctx, "a process using "+m.String(), uses(m)); err != nil {
				return err
			}
		} else if es, err := census.Read(ctx, r.store, ""); err != nil || !uses(m)(es) {
			r.event("census does not show %v (%v): too late to move to %v early", m, err, target)
			return nil
		}
		err := r.ctl.Set(ctx, target)
		var me *migration.MoveError
		switch {
		case err == nil:
			r.event("early Set(%v) committed: no live entry blocked it any more", target)
			r.mu.Lock()
			defer r.mu.Unlock()
			r.early++
			return nil
		case errors.As(err, &me) && len(me.Blockers) > 0:
			if stale {
				r.mu.Lock()
				r.staleRefused++
				r.mu.Unlock()
			}
			return r.checkRefusal(me, target)
		case errors.As(err, &me) || attempt == retryLimit || ctx.Err() != nil:
			return fmt.Errorf("rollout: early Set(%v) = %v, want a refusal naming the processes in the way", target, err)
		}
	}
}

// checkRefusal checks that each blocker a refusal names does block target,
// and is named in its message.
func (r *rollout) checkRefusal(me *migration.MoveError, target lockstep.Mode) error {
	msg := me.Error()
	across := 0
	for _, b := range me.Blockers {
		if len(migration.Blocking([]census.Entry{b}, target)) == 0 || !strings.Contains(msg, b.Process) {
			return fmt.Errorf("rollout: refusal of %v names %v, which does not block it: %v", target, b, me)
		}
		for m, n := range b.Held {
			if n > 0 && m != b.Configured {
				across++
			}
		}
	}
	r.event("refused: %v", me)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refused = append(r.refused, me)
	r.heldAcross += across
	return nil
}

func (r *rollout) event(format string, args ...any) {
	r.h.mu.Lock()
	defer r.h.mu.Unlock()
	r.h.event(controllerName+": "+format, args...)
}

// check verifies what a finished rollout must show: every phase of the
// runbook reached in order, a move skipping combined refused, no update of
// the shared counter lost, and locks taken in all three modes.
func (r *rollout) check() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.h
	h.mu.Lock()
	defer h.mu.Unlock()
	want := []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew, lockstep.ModeCombined, lockstep.ModeLegacy}
	switch {
	case !slices.Equal(r.reached, want):
		return fmt.Errorf("rollout: phases reached %v, want %v", r.reached, want)
	case !r.shape:
		return fmt.Errorf("rollout: no move skipping combined was refused")
	case h.counter != h.increments:
		return fmt.Errorf("mutual exclusion: counter %d after %d increments: an update was lost", h.counter, h.increments)
	case h.byMode[lockstep.ModeLegacy] == 0 || h.byMode[lockstep.ModeCombined] == 0 || h.byMode[lockstep.ModeNew] == 0:
		return fmt.Errorf("rollout: acquisitions by mode %v: some mode never used", h.byMode)
	}
	return nil
}
