package propertytests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model/sim"
)

// driftingProcess takes its locks through a migration.Locker whose flag
// says combined, except while config drift (switchMode) has flipped it to
// legacy: a stale replica, a flag rolled back by mistake.
var driftingProcess = migrationKind("drifting", [2]lockstep.Mode{lockstep.ModeCombined, lockstep.ModeLegacy},
	func(int) lockstep.Mode { return lockstep.ModeCombined }, false)

// drifter is a drifting process that takes a lock of the drifters' own,
// briefly and over and over, so that a drift of its flag is tried at once in
// a Lock call.
var drifter = kind{name: "drifter", mode: lockstep.ModeCombined, new: driftingProcess.new, user: driftUser}

// drainFleet is a fleet in phase combined whose flags drift between
// combined and legacy while a Controller with a Drain moves the phase to new
// and back: a correct user of the shared lock, and two drifters contending
// for theirs, so that a legacy acquisition often waits for the other
// drifter's release.
var drainFleet = fleet{name: "drain", kinds: []kind{driftingProcess, drifter, drifter},
	extraFault: switchMode, setup: phaseAt(lockstep.ModeCombined)}

// driftID is the drifter's lock.
const driftID = "drift"

// driftUser locks driftID, holds it for think, releases it and thinks, over
// and over, through the harness's records (acquisitions are checked like
// any other).
func driftUser(h *harness, ctx context.Context, pr *proc) {
	clk := pr.sp.Clock()
	for ctx.Err() == nil {
		h.waiting(pr)
		l, err := pr.locker.Lock(ctx, driftID)
		if err != nil {
			h.stopWaiting(pr)
			if clk.Sleep(ctx, think) != nil {
				return
			}
			continue
		}
		h.acquired(pr, l)
		if clk.Sleep(ctx, think) != nil {
			return
		}
		h.releasing(pr)
		_ = l.Unlock(context.WithoutCancel(ctx))
		h.releaseDone(l)
		if clk.Sleep(ctx, think) != nil {
			return
		}
	}
}

// drift flips the flag of one of the drifters (the last two processes)
// between combined and legacy.
func drift(h *harness, ch sim.Chooser) bool {
	pr := h.procs[len(h.procs)-1-ch.Choose("drifter", 2)]
	if pr.sp.Crashed() {
		return false
	}
	from, to := pr.locker.(*switchLocker).flip()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.switches++
	h.event("drift %s from %v to %v", pr.sp.Name, from, to)
	return true
}

// Timing and length of a drain run, in virtual time and actions.
const (
	drainFor     = 3 * time.Second        // the Controller's Drain
	drainPoll    = 500 * time.Millisecond // its Poll
	drainPause   = 300 * time.Millisecond // between two moves
	drainMoves   = 16                     // moves new, combined, new, … per run
	drainActions = 3000                   // actions per run at most
	drainBurst   = 80                     // random actions between two calm stretches
	drainCalm    = time.Second            // a calm stretch
	calmDrift    = 20                     // one calm action in calmDrift is a drift
)

// drainWeights bias a drain run: steps (the Controller's among them), time,
// the network, and flag drift often enough to land between a drain's last
// census read and its intent.
var drainWeights = [numActs + 1]int{actStep: 24, actTick: 6, actNet: 4, actTimeout: 1, actFault: 1, numActs: 3}

// drainStats sums what the drain runs of one test saw.
type drainStats struct {
	runs, actions, commits, refused, failed, drifts, legacyAcqs, intents, reverts int
}

func (st drainStats) String() string {
	return fmt.Sprintf("%d runs, %d actions, %d flag drifts, %d legacy acquisitions; moves: %d committed, %d refused, %d failed on store errors; "+
		"%d intents, %d of them reverted",
		st.runs, st.actions, st.drifts, st.legacyAcqs, st.commits, st.refused, st.failed, st.intents, st.reverts)
}

// runDrain runs drainFleet with the drain Controller for up to drainActions
// actions drawn with draw (choices from ch), checking safety and the phase
// property after each, and returns the trace on failure. v plants defects,
// for the negative control.
func runDrain(ch sim.Chooser, draw func() int, st *drainStats, v variant) (trace string, err error) {
	h, err := newHarness(drainFleet, v, true)
	if err != nil {
		return "", err
	}
	defer func() {
		if cerr := h.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	d, err := startDrainMover(h)
	if err != nil {
		return "", err
	}
	actions := 0
	for ; actions < drainActions && !d.finished(); actions++ {
		if actions%drainBurst == drainBurst-1 {
			// A calm stretch: a fair schedule without faults, so that
			// moves get done.
			n, err := calmStretch(h, ch, drainCalm)
			actions += n
			if err != nil {
				return h.report(), err
			}
			continue
		}
		switch a := draw(); a {
		case numActs:
			drift(h, ch)
		case actStep:
			// Any runnable yield, the Controller's too.
			if ys := h.s.Runnable(); len(ys) > 0 {
				h.s.Grant(ys[ch.Choose("yield", len(ys))], ch)
			} else {
				h.s.Step(ch)
			}
		default:
			h.act(ch, a)
		}
		if err := h.checkSafety(); err != nil {
			return h.report(), err
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	st.runs++
	st.actions += actions
	st.commits += d.commits
	st.refused += d.refused
	st.failed += d.failed
	st.intents += d.intents
	st.reverts += d.reverts
	st.drifts += h.switches
	st.legacyAcqs += h.byMode[lockstep.ModeLegacy]
	return "", nil
}

// calmStretch runs d of virtual time without faults: a runnable goroutine
// chosen by ch moves (requests served at once by every replica), messages in
// flight are delivered once nothing can move, and time passes only then.
// Unlike rollout.calm the order stays ch's: a drain races a drift only in an
// order that a round robin never takes (the drifter's census write and
// phase read both between the Controller's census read and its intent).
func calmStretch(h *harness, ch sim.Chooser, d time.Duration) (int, error) {
	s := h.s
	end := s.Now() + d.Microseconds()
	actions := 0
	for s.Now() < end {
		ys := s.Runnable()
		switch {
		case ch.Choose("drift", calmDrift) == calmDrift-1:
			drift(h, ch) // config drift is no fault: it goes on in calm
		case len(ys) > 0:
			s.Grant(ys[ch.Choose("yield", len(ys))], zeroChooser{})
		case s.Messages() > 0:
			s.Cluster().DeliverAll()
		case !s.Tick():
			return actions, fmt.Errorf("drain: nothing can ever run again")
		}
		actions++
		if err := h.checkSafety(); err != nil {
			return actions, fmt.Errorf("%w (calm)", err)
		}
	}
	return actions, nil
}

// drainDraw draws drain-run actions by drainWeights, from n(total).
func drainDraw(n func(total int) int) func() int {
	total := 0
	for _, w := range drainWeights {
		total += w
	}
	return func() int {
		k, a := n(total), 0
		for k >= drainWeights[a] {
			k -= drainWeights[a]
			a++
		}
		return a
	}
}

// drainProperty is the rapid property of a drain run.
func drainProperty(outer *testing.T, st *drainStats, v variant) func(*rapid.T) {
	return func(rt *rapid.T) {
		inBubble(outer, func() {
			slot := rapid.IntRange(0, 1<<20)
			draw := drainDraw(func(total int) int { return slot.Draw(rt, "action") % total })
			if trace, err := runDrain(chooser{rt}, draw, st, v); err != nil {
				rt.Fatalf("%v\ntrace:\n%s", err, trace)
			}
		})
	}
}

// A Controller that drains before its intent (docs/algorithms.md,
// section 7.3, "The drain changes nothing") moves the phase to new and back while the fleet's
// flags drift into legacy at any moment — between the drain's census reads,
// between the last of them and the intent, during the check after it — with
// rapid choosing the schedule and the faults. Mutual exclusion, ownership
// and the lease property hold after every action, and no lock is taken in
// legacy once a commit of new was acknowledged: the census read after the
// intent saw every process that began using legacy after the drain.
func TestController_DrainThenIntentNeverCommitsPastAForbiddenMode(t *testing.T) {
	defer rapidChecks(t, quickDrainChecks, deepChecks)()
	var st drainStats
	rapid.Check(t, drainProperty(t, &st, variant{}))
	t.Log(st)
	if st.commits == 0 || st.legacyAcqs == 0 {
		t.Errorf("the runs never committed a move (%d) or never took a legacy lock (%d): the property was not exercised", st.commits, st.legacyAcqs)
	}
}

// The same under seeded random schedules: a fixed workload whose figures the
// log shows, and which must commit moves to new and see drift refused.
func TestController_SeededDrainRunsKeepThePhaseProperty(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 5
	}
	var st drainStats
	for seed := range uint64(seeds) {
		var trace string
		var err error
		synctestRun(t, func() {
			rnd := rand.New(rand.NewPCG(seed, 13))
			trace, err = runDrain(randChooser{rnd}, drainDraw(rnd.IntN), &st, variant{})
		})
		if err != nil {
			t.Fatalf("seed %d: %v\ntrace:\n%s", seed, err, trace)
		}
	}
	t.Log(st)
	if st.commits == 0 || st.refused == 0 {
		t.Errorf("moves committed %d, refused %d: want both", st.commits, st.refused)
	}
}
