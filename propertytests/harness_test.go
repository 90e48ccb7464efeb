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
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/model/sim"
)

// variant says what one run plants or leaves out, for negative controls.
type variant struct {
	bugs         switches // defects planted in every process's Lockers (knobs_test.go)
	stormBugs    switches // defects planted in the storm processes' Lockers too (storm_test.go)
	noReadRepair bool     // the cluster does not repair on read
	noCrash      bool     // the random phase never crashes a process
	// noLeaseCheck leaves property 3 (a holder works only while its cells
	// surely live) to the fleet tests, so that a negative control is shrunk
	// towards the failure it plants.
	noLeaseCheck bool
	// noOwnerCellCheck leaves property 2b (a holder with Lost() open has a
	// live owner cell) out, for a control that keeps Lost() open too long
	// and must be caught by property 3, which 2b would otherwise often
	// report first, as soon as the cells expire.
	noOwnerCellCheck bool
	// noStateCheck leaves property 5 (no live lock cell after the run) out,
	// for a control that plants cells without TTL but must be caught by
	// liveness.
	noStateCheck bool
	// onlyBypass leaves out the quiet phase's liveness checks but bounded
	// bypass — a lock-manager fleet's per-plan wait bound (G2) and the
	// deadlock check of fleets that are not starvation-free — for a control
	// that must be caught by bounded bypass (G3), which the others would
	// otherwise often report first (groupstate_test.go).
	onlyBypass bool
	// noLiveness leaves out the quiet phase's liveness checks altogether
	// (its safety checks stay), for a control whose defect starves a
	// waiter too but must be caught by a safety property, which the
	// starvation would otherwise often be reported before.
	noLiveness bool
	// plant switches on the defects of the shared lease, fencing and
	// lock-manager code and of the layers above (knobs_test.go) in every
	// process's Lockers, and runs the fleets at the smallest TTL the options
	// then accept: the harness sets the timings when it is built and
	// restores them when it is closed.
	plant []defect
	// weights, when set, replace actWeights in the random phase.
	weights *[numActs]int
	// onlyExtraFault makes every fault of the random phase the fleet's own
	// extraFault, for a control whose defect shows only after it (a DC
	// fleet's partition and misroute).
	onlyExtraFault bool
	// promptWrites has every write applied at once by every replica its
	// coordinator reaches (the benign "write replicas" choice), so that
	// replicas differ only where a fault cuts them apart: for a control
	// whose defect needs two processes to make progress on either side of
	// a DC partition, which writes left waiting for deliveries stall.
	promptWrites bool
	// noFencing runs the fleet without fencing tokens, as the regression
	// seeds recorded before tokens were drawn in every mode were (a token
	// draw adds store requests, which moves every later choice).
	noFencing bool
	// longHolds, when set, is how many steps of work a holding does
	// instead of workSteps: for a control whose defect shows only in a
	// holding longer than a lease window. The liveness bounds assume holds
	// of workSteps, so such a run checks safety only.
	longHolds int
	// stepFirst steps the first process's wall clock by this much before
	// anything runs, as the random phase's clock-step fault would: for a
	// control whose defect needs a stepped clock and then time to pass.
	stepFirst time.Duration
	// fromHandoff starts the random phase where a fair run's first handoff
	// write is about to be sent (handoff_test.go): for a control whose defect shows only in what happens between a
	// handoff and its confirmation, which the random phase, whose holders
	// seldom keep their leases long enough to hand over, does not reach.
	fromHandoff bool
}

// proc is one simulated process and what its user goroutine is doing.
type proc struct {
	sp     *sim.Process
	kind   kind
	locker lockstep.Locker
	closer func(context.Context) error // the locker's Close

	// guarded by harness.mu
	waiting    bool
	waitStart  int64 // virtual µs
	quietWait  bool  // the wait began in the quiet phase
	bypass     int   // others' acquisitions during this quiet-phase wait
	holding    lockstep.Lock
	acquired   int
	arrivals   int   // Lock calls of a storm process (storm_test.go)
	lastWorked int64 // own clock
	worked     int   // work steps done in the current holding
	seen       int   // the shared counter as read at the first of them
	// holdingNo numbers the current holding: each lock a Lock call
	// returns gets the next number, and an adopted lock the number of the
	// holding that shared it, so the holders of one shared lock have one
	// number and a lock granted beside them another, whatever its owner.
	holdingNo int
}

// harness is one run: a simulation, its fleet, and the checker's records.
type harness struct {
	s      *sim.Sim
	f      fleet
	v      variant
	procs  []*proc
	trace  []string // recent events, for failure reports
	traced bool
	full   []string // every event of a traced run (trace keeps the last ones)

	unplant    func()   // undoes v.plant's timings
	knobs      knobs    // the defects v plants, for every process's Lockers
	stormKnobs knobs    // and for the storm processes' (kind.storm)
	wake       *wakeNet // the wake-up network, if a process uses it (wake_test.go)

	mu         sync.Mutex
	lastOK     map[string]int64 // owner → virtual time of the send of its latest acknowledged write
	released   map[string]bool  // owners whose Unlock returned
	violations []string
	quiet      bool
	quietStart int64
	lastAcq    int64 // virtual µs of the latest acquisition
	holdings   int   // holdings numbered (proc.holdingNo)
	maxBypass  int
	maxWait    time.Duration // longest quiet-phase wait (since its start) that ended in an acquisition
	acqs       int
	byMode     [lockstep.ModeNew + 1]int // acquisitions by the mode of the lock
	// counter is incremented non-atomically by every holding that does all
	// its work steps: read at the first, written back at the last. With
	// exclusion it ends equal to increments; a lost update shows a
	// violation even where no two holders were seen valid at one instant.
	counter, increments int
	// fencing records every token handed out (fencing_test.go).
	fencing fenceLog
	// queueOwnerCol and legacyOwners say where each owner's owner cell is
	// (ownercell_test.go): its Locker's "~o/" column, or its legacy main cell.
	queueOwnerCol map[string]string
	handoff       *handoffs   // handoff_test.go
	qcells        *queueCells // queuecell_test.go
	legacyOwners  map[string]bool
	// queueOwnerColOf is queueOwnerCol per writing process ("<process>
	// <owner>"): the holders of a shared owner each have a column of their
	// own (transferfleet_test.go).
	queueOwnerColOf map[string]string
	// switches counts flag flips by the fleet's extraFault; heldAcross the
	// locks released while their process's flag gave another mode than the
	// one they were taken in (the process switched while holding them).
	switches, heldAcross int
	// onAcquired, when set, is called with mu held at every acquisition,
	// for a check of its own (phasedrain_test.go).
	onAcquired func(pr *proc, l lockstep.Lock)
	// onWork, when set, is called with mu held at every step of work, for
	// a check of its own (migtransfer_test.go).
	onWork func(pr *proc, l lockstep.Lock)
	// grp is what a lock-manager fleet's users record (groupstate_test.go);
	// ch is the chooser of the random-phase action running now, from which
	// they draw their operations, and drawPanic a panic of such a draw, to
	// be raised again on the test's goroutine (groupuser_test.go).
	grp       *groupState
	dl        *deadlockState // the deadlock fleet's history (deadlockfleet_test.go)
	tr        *transferState // the transfer fleet's handovers (transferfleet_test.go)
	co        *cohortState   // the cohort fleet's grants (cohort_test.go)
	ch        sim.Chooser
	drawPanic any
	// sent holds the store requests sent and not yet answered, so that a
	// cut fails only requests sent while it lasts (cut_test.go); cutUntil
	// is when each cut process's cut ends, virtual µs (read and written by
	// the test's goroutine only).
	sent     map[*sim.Yield]bool
	cutUntil map[*sim.Process]int64
}

// newHarness builds fleet f on a fresh simulation and starts one user
// goroutine per process. Call inside a synctest bubble; call close at the end.
func newHarness(f fleet, v variant, traced bool) (_ *harness, err error) {
	h := &harness{f: f, v: v, traced: traced, lastOK: map[string]int64{}, released: map[string]bool{},
		queueOwnerCol: map[string]string{}, queueOwnerColOf: map[string]string{}, legacyOwners: map[string]bool{}, sent: map[*sim.Yield]bool{}}
	if h.knobs, err = knobsFor(v.bugs, v.plant); err != nil {
		return nil, err
	}
	if h.stormKnobs, err = knobsFor(v.bugs.union(v.stormBugs), v.plant); err != nil {
		return nil, err
	}
	h.unplant = plant(v.plant, h.knobs)
	defer func() {
		if err != nil {
			h.unplant() // close will not be called
		}
	}()
	cc := model.ClusterConfig{NoReadRepair: v.noReadRepair}
	if f.dc != nil {
		cc.DCs = dcReplicas
	}
	h.s = sim.New(sim.Config{Cluster: cc, TestingKnobs: h.knobs.sim})
	h.s.OnStore = h.onStore
	if traced {
		h.s.Trace = func(e string) { h.full = append(h.full, "sim "+e) }
	}
	if f.groups != nil {
		h.grp = newGroupState(*f.groups)
	}
	if f.deadlock {
		h.dl = newDeadlockState()
	}
	if f.transfer {
		h.tr = newTransferState()
	}
	if f.cohort != nil {
		h.co = newCohortState()
	}
	if f.setup != nil {
		if err := f.setup(h.s); err != nil {
			return nil, err
		}
	}
	for i, k := range f.kinds {
		if i == 1 && f.shareFirst {
			// A second user goroutine of p0, on p0's Locker.
			first := h.procs[0]
			pr := &proc{sp: first.sp, kind: k, locker: first.locker, closer: first.closer}
			h.procs = append(h.procs, pr)
			user := h.user
			if k.user != nil {
				user = func(ctx context.Context, pr *proc) { k.user(h, ctx, pr) }
			}
			first.sp.Go(func(ctx context.Context) { user(ctx, pr) })
			continue
		}
		sp := h.addProcess(i)
		var fencing *clock.Global
		if !v.noFencing {
			if fencing, err = clock.NewGlobal(sp.Store(), "", sp.Clock()); err != nil {
				return nil, err
			}
		}
		var l lockstep.Locker
		var closer func(context.Context) error
		if k.newWake != nil {
			if h.wake == nil {
				h.wake = newWakeNet()
			}
			l, closer, err = k.newWake(sp, 1, fencing, h.knobs, h.wake)
		} else {
			kn := h.knobs
			if k.storm {
				kn = h.stormKnobs
			}
			l, closer, err = k.new(sp, 1, fencing, kn)
		}
		if err != nil {
			return nil, err
		}
		pr := &proc{sp: sp, kind: k, locker: l, closer: closer}
		h.procs = append(h.procs, pr)
		user := h.user
		if k.user != nil {
			user = func(ctx context.Context, pr *proc) { k.user(h, ctx, pr) }
		}
		sp.Go(func(ctx context.Context) { user(ctx, pr) })
		if f.cohort != nil {
			h.addCohortUsers(pr, user)
		}
	}
	if v.stepFirst != 0 {
		h.procs[0].sp.Now() // a wall clock that has been read: a step back then stands still
		h.s.StepWall(h.procs[0].sp, v.stepFirst)
		h.event("step %s's wall clock by %v", h.procs[0].sp.Name, v.stepFirst)
	}
	h.s.Settle()
	if v.fromHandoff {
		if err := h.runToHandoff(); err != nil {
			_ = h.close()
			return nil, err
		}
	}
	return h, nil
}

// close crashes everything so the bubble can end; it reports goroutines
// that did not run down. Then it closes every process's locker, as an owner
// shutting down would: goroutines that wait on in-memory signals rather than
// on the clock or the store (the loss merges of combined and migration
// locks) end only there. Every store request of a crashed process fails at
// once, so closing does not go through the scheduler.
func (h *harness) close() error {
	defer h.unplant()
	clean := h.s.Close()
	for _, pr := range h.procs {
		if pr.closer != nil {
			_ = pr.closer(context.Background())
		}
	}
	h.s.Settle()
	if !clean {
		return fmt.Errorf("simulated goroutines still blocked after every process crashed")
	}
	return nil
}

// workAndRelease is a correct holder's part: work workSteps steps of l,
// checking Lost() before each, then release (releasing records it first),
// retrying a failed release once, a poll later, as a careful user would
// (lock.go). It reports false if the process crashed while holding.
func (h *harness) workAndRelease(ctx context.Context, pr *proc, l lockstep.Lock, releasing func()) bool {
	clk := pr.sp.Clock()
	for range h.workSteps() {
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
	releasing()
	err := l.Unlock(context.WithoutCancel(ctx))
	if err != nil && !errors.Is(err, lockstep.ErrLost) && clk.Sleep(ctx, poll) == nil {
		_ = l.Unlock(context.WithoutCancel(ctx))
	}
	h.releaseDone(l)
	return true
}

// workSteps is how many steps of work a holding does.
func (h *harness) workSteps() int {
	if h.v.longHolds > 0 {
		return h.v.longHolds
	}
	return workSteps
}

// user is a correct lock user: take the lock, check Lost() before each step
// of work, release, think, repeat.
func (h *harness) user(ctx context.Context, pr *proc) {
	clk := pr.sp.Clock()
	for ctx.Err() == nil {
		h.waiting(pr)
		l, err := pr.locker.Lock(ctx, lockID)
		if err != nil {
			h.stopWaiting(pr)
			if clk.Sleep(ctx, think) != nil {
				return
			}
			continue
		}
		h.acquired(pr, l)
		if !h.workAndRelease(ctx, pr, l, func() { h.releasing(pr) }) {
			return // crashed while holding
		}
		if clk.Sleep(ctx, think) != nil {
			return
		}
	}
}

func (h *harness) waiting(pr *proc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	pr.waiting, pr.waitStart, pr.quietWait, pr.bypass = true, h.s.Now(), h.quiet, 0
}

func (h *harness) stopWaiting(pr *proc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	pr.waiting = false
}

func (h *harness) acquired(pr *proc, l lockstep.Lock) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.event("%s acquired as %s", pr.sp.Name, l.Owner())
	if h.quiet && pr.waiting {
		h.maxWait = max(h.maxWait, h.elapsed(max(pr.waitStart, h.quietStart)))
	}
	pr.waiting, pr.holding = false, l
	pr.acquired++
	h.holdings++
	pr.holdingNo = h.holdings
	h.checkToken(pr, l)
	if h.co != nil {
		h.checkGrantOrder(pr, l)
	}
	pr.worked = 0
	h.acqs++
	h.noteHandedHold(l.Owner())
	if m := l.Mode(); m.Valid() {
		h.byMode[m]++
	}
	h.lastAcq = h.s.Now()
	if pr.quietWait && pr.bypass > h.maxBypass {
		h.maxBypass = pr.bypass
	}
	for _, q := range h.procs {
		if q != pr && q.waiting && q.quietWait {
			q.bypass++
		}
	}
	if h.onAcquired != nil {
		h.onAcquired(pr, l)
	}
}

func (h *harness) releasing(pr *proc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f, ok := pr.locker.(interface{ flagMode() lockstep.Mode }); ok && pr.holding != nil && f.flagMode() != pr.holding.Mode() {
		h.heldAcross++
	}
	pr.holding = nil
}

func (h *harness) releaseDone(l lockstep.Lock) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stillShared(l.Owner()) {
		return // another process holds the owner's lock (transferfleet_test.go)
	}
	if handedOn(l) {
		return // another goroutine of the process holds the owner's lock (cohort_test.go)
	}
	h.released[l.Owner()] = true
}

// validLocked reports whether pr believes it holds l: Lost() is open, so a
// correct user would work now. Two such holders of one id at once break
// mutual exclusion, whatever their leases' arithmetic says (property 1).
func (h *harness) validLocked(pr *proc, l lockstep.Lock) bool {
	select {
	case <-l.Lost():
		return false
	default:
		return true
	}
}

func (h *harness) violate(format string, args ...any) {
	h.violations = append(h.violations, fmt.Sprintf(format, args...))
}

// event records a line of the trace kept for failure reports.
func (h *harness) event(format string, args ...any) {
	if !h.traced {
		return
	}
	line := fmt.Sprintf("%8.3fs ", float64(h.s.Now()-model.DefaultStart)/1e6) + fmt.Sprintf(format, args...)
	h.full = append(h.full, line)
	h.trace = append(h.trace, line)
	if len(h.trace) > 80 {
		h.trace = h.trace[len(h.trace)-60:]
	}
}

func (h *harness) report() string { return strings.Join(h.trace, "\n") }

// fullReport is every event of a traced run, the simulator's own decisions
// among them: what two runs of one seed are compared by.
func (h *harness) fullReport() string { return strings.Join(h.full, "\n") }

// checkSafety returns the first violation: one recorded by onStore or work,
// or two holders valid at once (property 1).
func (h *harness) checkSafety() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.violations) > 0 {
		return fmt.Errorf("%s", h.violations[0])
	}
	if h.grp != nil {
		if err := h.checkGroupSafety(); err != nil {
			return err
		}
	}
	if h.dl != nil {
		if err := h.checkDeadlockSafety(); err != nil {
			return err
		}
	}
	valid := map[string][]string{} // id → owners whose Lost() is open
	seen := map[string][]int{}     // id → their holdings (proc.holdingNo)
	for _, pr := range h.procs {
		if l := pr.holding; l != nil && !pr.sp.Crashed() && h.validLocked(pr, l) {
			row := h.row(pr, l.ID()) // one holder per id in each scope (dc_test.go)
			if h.co == nil && slices.Contains(valid[row], l.Owner()) {
				continue // one owner shared by two processes (transferfleet_test.go) is one holder
			}
			if h.co != nil && slices.Contains(seen[row], pr.holdingNo) {
				// One shared lock's giver and adopters are one holder; a
				// lock granted in memory beside them (one owner: one store
				// hold) is another (cohorttransfer_test.go).
				continue
			}
			valid[row] = append(valid[row], l.Owner())
			seen[row] = append(seen[row], pr.holdingNo)
			if len(valid[row]) > 1 {
				return fmt.Errorf("mutual exclusion: %d holders of %q with Lost() open at once: %v (holdings %v)", len(valid[row]), row, valid[row], seen[row])
			}
		}
	}
	if !h.v.noOwnerCellCheck {
		if err := h.checkOwnerCells(); err != nil {
			return err
		}
	}
	return h.checkQueueCells()
}

func (h *harness) elapsed(since int64) time.Duration {
	return time.Duration(h.s.Now()-since) * time.Microsecond
}
