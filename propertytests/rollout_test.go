package propertytests

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model/sim"
)

// The rollout fleets (docs/algorithms.md, section 7): combined beside legacy, combined beside
// new, and processes switching between the two through their flag. Each is
// checked like the single-mode fleets: mutual exclusion, ownership and the
// lease property after every action of a random phase with faults, then
// liveness in a quiet phase — deadlock freedom where legacy runs (its own
// unfairness is the point of the migration), starvation freedom with
// bounded bypass where every process runs combined or new.

// Combined processes exclude legacy ones through the legacy tables; only the
// queue's head contends there.
func TestLegacyCombinedFleet_MutualExclusionAndDeadlockFreedom(t *testing.T) {
	checkFleet(t, "legacy+combined")
}

// Combined processes exclude new ones through the queue, and every process
// waits its turn in it.
func TestCombinedNewFleet_MutualExclusionAndStarvationFreedom(t *testing.T) {
	checkFleet(t, "combined+new")
}

// Every process a migration.Locker in phase combined, alternating between
// legacy and combined at each acquisition and at random moments: a lock
// taken in one mode is held, renewed and released after the process moved to
// the other, while peers take theirs in either.
func TestLegacyCombinedSwitchingFleet_MutualExclusionAndDeadlockFreedom(t *testing.T) {
	checkFleet(t, "legacy+combined/switching")
}

// The same in phase new, between combined and new.
func TestCombinedNewSwitchingFleet_MutualExclusionAndStarvationFreedom(t *testing.T) {
	checkFleet(t, "combined+new/switching")
}

// The switching fleets do what their tests claim: both modes of each pair
// are used, and locks are released by processes whose flag has moved on
// since they took them. Seeded runs of a random phase and a quiet phase.
func TestSwitchingFleets_LocksAreHeldAcrossSwitches(t *testing.T) {
	for _, name := range []string{"legacy+combined/switching", "combined+new/switching"} {
		var sum switchCounts
		for seed := range uint64(5) {
			var err error
			synctestRun(t, func() { err = switchingRun(fleetNamed(name), seed, &sum) })
			if err != nil {
				t.Fatalf("%s, seed %d: %v", name, seed, err)
			}
		}
		t.Logf("%s: %d acquisitions (by mode %v), %d released after a switch, %d random switches",
			name, sum.acqs, sum.byMode, sum.heldAcross, sum.switches)
		if sum.heldAcross == 0 || sum.switches == 0 {
			t.Errorf("%s: no lock held across a switch (%d), or no random switch (%d)", name, sum.heldAcross, sum.switches)
		}
		used := 0
		for _, n := range sum.byMode {
			if n > 0 {
				used++
			}
		}
		if used != 2 {
			t.Errorf("%s: acquisitions by mode %v, want both modes of the pair", name, sum.byMode)
		}
	}
}

// switchCounts sums what switching runs saw.
type switchCounts struct {
	acqs, heldAcross, switches int
	byMode                     [lockstep.ModeNew + 1]int
}

// switchingRun runs fleet f for 300 random actions from seed, with faults
// (flag flips among them) four times as likely as in the fleet tests, then
// the quiet phase, and adds its counts to sum.
func switchingRun(f fleet, seed uint64, sum *switchCounts) (err error) {
	h, err := newHarness(f, variant{}, true)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := h.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	rnd := rand.New(rand.NewPCG(seed, 11))
	draw := weightedDraw([numActs]int{actStep: 12, actTick: 3, actNet: 2, actTimeout: 1, actFault: 4}, rnd.IntN)
	for range 300 {
		h.act(randChooser{rnd}, draw())
		if err := h.checkSafety(); err != nil {
			return fmt.Errorf("%w\ntrace:\n%s", err, h.report())
		}
	}
	if err := h.quietPhase(); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.counter != h.increments {
		return fmt.Errorf("mutual exclusion: counter %d after %d increments: an update was lost", h.counter, h.increments)
	}
	for m, n := range h.byMode {
		sum.byMode[m] += n
	}
	sum.acqs += h.acqs
	sum.heldAcross += h.heldAcross
	sum.switches += h.switches
	return nil
}

// drive runs the rollout to its end and checks safety after every action.
// It alternates bursts of random actions — drawn with draw, choices from ch,
// faults included — with calm stretches in which no new fault is injected
// and every runnable goroutine moves in turn (the random phase and the quiet
// phase of the fleet tests, repeated), so that faults hit every step of the
// runbook and the runbook still advances. It returns the number of actions.
func (r *rollout) drive(ch sim.Chooser, draw func() int, maxActions int) (int, error) {
	h, actions := r.h, 0
	for !r.done() {
		end := h.s.Now() + burstFor.Microseconds()
		for i := 0; i < burst && h.s.Now() < end; i++ {
			if actions >= maxActions {
				return actions, fmt.Errorf("rollout: not finished after %d actions\ntrace:\n%s", actions, h.report())
			}
			var ok bool
			if a := draw(); a == actStep {
				ok = r.step(ch)
			} else {
				ok = h.act(ch, a)
			}
			if ok {
				actions++
			}
			if err := h.checkSafety(); err != nil {
				return actions, fmt.Errorf("%w\ntrace:\n%s", err, h.report())
			}
		}
		n, err := r.calm()
		actions += n
		if err != nil {
			return actions, err
		}
	}
	return actions, r.err
}

// step grants one runnable yield of any process, the controller's too,
// first moving time if nothing can run.
func (r *rollout) step(ch sim.Chooser) bool {
	s := r.h.s
	ys := s.Runnable()
	if len(ys) == 0 {
		return s.Step(ch)
	}
	y := ys[ch.Choose("yield", len(ys))]
	r.h.mu.Lock()
	r.h.event("grant %v", y)
	r.h.mu.Unlock()
	s.Grant(y, ch)
	return true
}

// Bursts of random actions and calm stretches (see drive): a burst ends
// after burst actions or burstFor of virtual time, whichever comes first.
const (
	burst    = 150
	burstFor = 5 * time.Second
	calmFor  = 5 * time.Second
)

// calm runs calmFor of virtual time, or until the runbook ends, under a fair
// round-robin schedule without new faults: runnable goroutines move in turn
// by process, messages in flight are delivered once nothing can move, and
// time passes only then.
func (r *rollout) calm() (int, error) {
	s, h := r.h.s, r.h
	end := s.Now() + calmFor.Microseconds()
	next, actions := 0, 0
	r.event("calm begins")
	defer r.event("calm ends")
	for s.Now() < end && !r.done() {
		ys := s.Runnable()
		switch {
		case len(ys) > 0:
			s.Grant(roundRobin(ys, &next), zeroChooser{})
		case s.Messages() > 0:
			s.Cluster().DeliverAll()
		case !s.Tick():
			return actions, fmt.Errorf("rollout: nothing can ever run again\ntrace:\n%s", h.report())
		}
		actions++
		if err := h.checkSafety(); err != nil {
			return actions, fmt.Errorf("%w (calm)\ntrace:\n%s", err, h.report())
		}
	}
	return actions, nil
}

// rolloutWeights bias the rollout's random schedule like the random phase's,
// with faults half as frequent: a rollout runs about a thousand actions, and
// a fault in every 19 would keep the fleet paused or stale most of the time.
var rolloutWeights = [numActs]int{actStep: 24, actTick: 6, actNet: 4, actTimeout: 2, actFault: 1}

// maxRolloutActions bounds one rollout, which typically takes 500–2,000.
const maxRolloutActions = 60_000

// rolloutStats sums what the rollouts of one test saw, for its log.
type rolloutStats struct {
	runs, actions, refused, heldAcross, early, stale, staleRefused, late int
	byMode                                                               [lockstep.ModeNew + 1]int
	virtual                                                              time.Duration
}

func (st rolloutStats) String() string {
	return fmt.Sprintf("%d rollouts, %d actions, %v of virtual time; acquisitions legacy %d, combined %d, new %d; "+
		"%d early moves refused (%d of %d tried before the flip; %d blockers held a lock across a switch), %d committed once the census had cleared; "+
		"%d runbook moves refused after the census had cleared (retried)",
		st.runs, st.actions, st.virtual.Round(time.Second), st.byMode[lockstep.ModeLegacy], st.byMode[lockstep.ModeCombined],
		st.byMode[lockstep.ModeNew], st.refused, st.staleRefused, st.stale, st.heldAcross, st.early, st.late)
}

// runRollout runs the full rollout and rollback of docs/migrating.md on
// rolloutFleet, the controller driving the phase, with the scheduler's
// choices from ch and its actions from draw, and returns the trace.
func runRollout(ch sim.Chooser, draw func() int, st *rolloutStats) (trace string, err error) {
	h, err := newHarness(rolloutFleet, variant{}, true)
	if err != nil {
		return "", err
	}
	defer func() {
		if cerr := h.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	r, err := startRollout(h)
	if err != nil {
		return "", err
	}
	start := h.s.Now()
	actions, err := r.drive(ch, draw, maxRolloutActions)
	if err == nil {
		err = r.check()
	}
	if err != nil {
		return h.report(), err
	}
	st.runs++
	st.actions += actions
	st.refused += len(r.refused)
	st.heldAcross += r.heldAcross
	st.early += r.early
	st.stale += r.stale
	st.staleRefused += r.staleRefused
	st.late += r.late
	st.virtual += h.elapsed(start)
	for m := range st.byMode {
		st.byMode[m] += h.byMode[m]
	}
	return h.report(), nil
}

// weightedDraw returns a draw of actions by w, from n(total) in [0, total).
func weightedDraw(w [numActs]int, n func(total int) int) func() int {
	total := 0
	for _, x := range w {
		total += x
	}
	return func() int {
		k, a := n(total), 0
		for k >= w[a] {
			k -= w[a]
			a++
		}
		return a
	}
}

// The full rollout legacy → combined → new → combined → legacy of the
// runbook, with the phase controller as one more simulated process and
// rapid choosing the schedule and the faults (processes paused beyond
// their TTLs, crashed, clocks skewed, requests delayed, lost and timed out).
// Mutual exclusion, ownership and the lease property are checked after
// every action; at the end, every phase must have been reached in order, a
// move skipping combined refused, no update of a counter incremented under
// the lock lost, and locks taken in every mode. Moves tried too early — new
// while the census shows legacy, combined while it shows new, before and
// just after the flags flip — must either be refused with a
// *migration.MoveError naming only processes that block them, or commit
// because the census cleared first (which exclusion, checked throughout,
// then vouches for); at least one must be refused. The test logs how often
// each happened, and how often a blocker had switched while still holding
// a lock of the old mode.
func TestRollout_RunbookDrivenByTheControllerKeepsExclusionAtEveryStep(t *testing.T) {
	defer rapidChecks(t, quickRolloutChecks, deepRolloutChecks)()
	var st rolloutStats
	rapid.Check(t, func(rt *rapid.T) {
		inBubble(t, func() {
			slot := rapid.IntRange(0, 1<<20)
			draw := weightedDraw(rolloutWeights, func(total int) int { return slot.Draw(rt, "action") % total })
			if trace, err := runRollout(chooser{rt}, draw, &st); err != nil {
				rt.Fatalf("%v\ntrace:\n%s", err, trace)
			}
		})
	})
	t.Log(st)
	if st.staleRefused == 0 {
		t.Error("no move tried too early was refused")
	}
}

// The same rollout under seeded random schedules, with a per-run
// requirement the rapid test leaves to its total: every move tried before
// the flip (new while the flags still say legacy, combined while they say
// new) is refused. Only the expiry of every entry in its way between the
// runbook's census read and the controller's could let one commit, which no
// fixed seed here does; a seed that did would fail every time, never
// intermittently. The first seed runs twice and must give the same run.
func TestRollout_SeededRunbooksRefuseEarlyMovesAndRepeat(t *testing.T) {
	seeds := 30
	if testing.Short() {
		seeds = 5
	}
	run := func(seed uint64, st *rolloutStats) (string, error) {
		var trace string
		var err error
		synctestRun(t, func() {
			rnd := rand.New(rand.NewPCG(seed, 7))
			trace, err = runRollout(randChooser{rnd}, weightedDraw(rolloutWeights, rnd.IntN), st)
		})
		return trace, err
	}
	var st rolloutStats
	for seed := range uint64(seeds) {
		before := st
		trace, err := run(seed, &st)
		if err != nil {
			t.Fatalf("seed %d: %v\ntrace:\n%s", seed, err, trace)
		}
		if n, refused := st.stale-before.stale, st.staleRefused-before.staleRefused; refused != n || n == 0 {
			t.Fatalf("seed %d: %d of %d moves tried before the flip were refused; want all", seed, refused, n)
		}
		if seed == 0 {
			again, err := run(seed, &rolloutStats{})
			if err != nil || again != trace {
				t.Fatalf("seed 0 ran differently the second time (%v):\n%s\n---\n%s", err, trace, again)
			}
		}
	}
	t.Log(st)
}
