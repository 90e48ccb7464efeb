package propertytests

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

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
	// draws pairs the global-time draws with the acquisitions whose tokens
	// they gave, at EvidenceUse (evidence_test.go); nil otherwise.
	draws *drawLog
	// rb is what the rollback fleet's prefix and counts record
	// (rollbackevidence_test.go); nil in other fleets.
	rb *rollbackState
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
	h.knobs.evidence, h.stormKnobs.evidence = v.evidence, v.evidence
	if v.evidence == queuelock.EvidenceUse {
		h.draws = newDrawLog()
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
				h.wake.onSend = h.checkGrantSend
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
	if v.fromRace {
		if err := h.runToRace(); err != nil {
			_ = h.close()
			return nil, err
		}
	}
	if v.fromRollback {
		if err := h.runToRollback(); err != nil {
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

func (h *harness) elapsed(since int64) time.Duration {
	return time.Duration(h.s.Now()-since) * time.Microsecond
}
