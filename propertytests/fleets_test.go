package propertytests

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"
)

// stats sums what the checks of one test saw, for its log.
type stats struct {
	runs, actions, acquisitions, maxBypass int
	// handoffs counts acknowledged handoffs (handoff_test.go), handedHolds
	// the acquisitions they made.
	handoffs, handedHolds int
	maxWait               time.Duration // longest quiet-phase wait that ended in an acquisition
	// stormArrivals and stormAcquisitions count the Lock calls of storm
	// processes and the locks they got (storm_test.go); acquisitions
	// includes the latter.
	stormArrivals, stormAcquisitions int
	// wake counts the wake-up network's traffic (wake_test.go).
	wake wakeStats
	// groups counts the lock-manager fleets' calls (groupstate_test.go).
	groups groupStats
	// deadlocks counts the deadlock fleet's ErrDeadlock reports
	// (deadlockfleet_test.go).
	deadlocks int
	// handovers and adoptions count the transfer fleet's tokens posted and
	// adopted (transferfleet_test.go).
	handovers, adoptions int
	// grants, localHandoffs and extensions count the cohort fleet's locks
	// returned, those handed over in memory and the store holds extended
	// past their bound (cohort_test.go).
	grants, localHandoffs, extensions, followed int
	// cohortTransfer counts the cohort-transfer fleet's states
	// (cohorttransfer_test.go).
	cohortTransfer cohortTransferState
	// evidence counts the tokens drawn beside their claims
	// (evidence_test.go).
	evidence evidenceStats
	// rollback counts the rollback fleet's locks (rollbackevidence_test.go).
	rollback rollbackStats
}

// fleetProperty is one check: build fleet f with variant v, run the random
// phase under rapid, then the quiet phase. last receives the random-phase
// script of the latest run (for negative controls, the shrunk
// counterexample, since rapid replays it last).
func fleetProperty(outer *testing.T, f fleet, v variant, st *stats, last *script) func(*rapid.T) {
	return func(t *rapid.T) {
		inBubble(outer, func() { runFleet(t, f, v, st, last) })
	}
}

// inBubble runs f in a synctest bubble of its own and re-raises, on the
// calling goroutine, any panic of f — which is how rapid reports failures,
// skips and invalid draws. rapid tells failures apart by the traceback of the
// panic (its shrinker keeps a smaller case only if it fails "the same way"),
// and the re-raise loses the original one, so each kind is re-raised from a
// call site of its own: rapid's invalid-data panics (an exhausted or
// rejected draw while shrinking) must never pass for the failure being
// shrunk. Other panics carry their stack in the message.
func inBubble(outer *testing.T, f func()) {
	var caught any
	synctest.Test(outer, func(*testing.T) {
		defer func() {
			caught = recover()
			if caught != nil && !isRapidPanic(caught) {
				caught = fmt.Sprintf("%v\n%s", caught, debug.Stack())
			}
		}()
		f()
	})
	switch {
	case caught == nil:
	case reflect.TypeOf(caught).String() == "rapid.invalidData":
		reraiseInvalid(caught)
	default:
		reraiseFailure(caught)
	}
}

func isRapidPanic(v any) bool {
	n := reflect.TypeOf(v).String()
	return n == "rapid.invalidData" || n == "rapid.stopTest"
}

func reraiseInvalid(v any) { panic(v) }

// reraiseFailure re-raises a failure from a call site per property, so that
// shrinking one property's counterexample never drifts to another's.
func reraiseFailure(v any) {
	msg := fmt.Sprint(v)
	switch {
	case strings.HasPrefix(msg, "mutual exclusion:"):
		reraiseExclusion(v)
	case strings.HasPrefix(msg, "ownership:"):
		reraiseOwnership(v)
	case strings.HasPrefix(msg, "lease:"):
		reraiseLease(v)
	case strings.HasPrefix(msg, "liveness: bypass:"):
		reraiseBypass(v)
	case strings.HasPrefix(msg, "liveness:"):
		reraiseLiveness(v)
	case strings.HasPrefix(msg, "state:"):
		reraiseState(v)
	case strings.HasPrefix(msg, "fencing:"):
		reraiseFencing(v)
	}
	panic(v)
}

func reraiseExclusion(v any) { panic(v) }
func reraiseOwnership(v any) { panic(v) }
func reraiseLease(v any)     { panic(v) }
func reraiseLiveness(v any)  { panic(v) }
func reraiseBypass(v any)    { panic(v) }
func reraiseState(v any)     { panic(v) }
func reraiseFencing(v any)   { panic(v) }

// synctestRun runs f in a synctest bubble of its own.
func synctestRun(t *testing.T, f func()) { synctest.Test(t, func(*testing.T) { f() }) }

func runFleet(t *rapid.T, f fleet, v variant, st *stats, last *script) {
	{
		h, err := newHarness(f, v, true)
		if err != nil {
			t.Fatal(err)
		}
		clean := false
		defer func() {
			if err := h.close(); err != nil && clean {
				t.Fatal(err)
			}
		}()
		var sc script
		defer func() { *last = sc }()
		h.randomPhase(t, &sc)
		if h.wake != nil && !v.fromHandoff {
			// The quiet phase either loses every wake-up (the progress
			// check; false is where rapid shrinks to) or delivers each at
			// once, so that genuine wake-ups meet the safety checks too.
			// A run from the first handoff always loses them, as a replay
			// of its script does: its control's failure may come in the
			// quiet phase, from a wake-up the random phase delivered.
			h.wake.arriveInQuiet = rapid.Bool().Draw(t, "quiet-phase wake-ups delivered")
		}
		if err := h.quietPhase(); err != nil {
			t.Fatal(err)
		}
		if err := h.checkStateFreed(); err != nil {
			t.Fatal(err)
		}
		clean = true
		if st != nil {
			st.runs++
			st.actions += len(sc)
			st.acquisitions += h.acqs
			st.maxBypass = max(st.maxBypass, h.maxBypass)
			st.maxWait = max(st.maxWait, h.maxWait)
			if h.wake != nil {
				st.wake.add(h.wake.stats())
			}
			if h.handoff != nil {
				st.handoffs += h.handoff.acked
				st.handedHolds += h.handoff.held
			}
			if h.grp != nil {
				st.groups.add(h.grp.stats)
			}
			if h.dl != nil {
				st.deadlocks += h.dl.reports
			}
			if h.co != nil {
				st.grants += h.co.grants
				st.localHandoffs += h.co.handoffs
				st.cohortTransfer.add(h.co.tr)
				st.extensions += h.co.extensions
				st.followed += h.co.followed
			}
			if h.draws != nil {
				st.evidence.add(h.evidenceStats())
			}
			if h.tr != nil {
				st.handovers += h.tr.handovers
				st.adoptions += h.tr.adopted
			}
			if h.rb != nil {
				st.rollback.add(h.rb.stats)
			}
			for _, pr := range h.procs {
				if pr.kind.user != nil {
					st.stormArrivals += pr.arrivals
					st.stormAcquisitions += pr.acquired
				}
			}
		}
	}
}

// checkFleet runs rapid over fleet f inside one synctest bubble, at the
// package's depth (rapidChecks).
func checkFleet(t *testing.T, name string) { checkFleetVariant(t, name, variant{}) }

// checkFleetVariant is checkFleet with variant v, for schedules a negative
// control searches that the plain fleet seldom reaches: the correct
// Lockers must pass them too.
func checkFleetVariant(t *testing.T, name string, v variant) {
	checkFleetDepth(t, name, v, deepChecks)
}

// checkFleetDepth is checkFleetVariant with deepN rapid checks under
// LOCKSTEP_DEEP=1, for a fleet whose schedules cost several of a plain
// fleet's.
func checkFleetDepth(t *testing.T, name string, v variant, deepN int) {
	checkFleetOf(t, fleetNamed(name), v, quickFleetChecks, deepN)
}

// checkFleetOf is checkFleetDepth for a fleet outside the fleets list, with
// quickN checks by default; it returns what the checks saw.
func checkFleetOf(t *testing.T, f fleet, v variant, quickN, deepN int) stats {
	defer rapidChecks(t, quickN, deepN)()
	var st stats
	var last script
	rapid.Check(t, fleetProperty(t, f, v, &st, &last))
	t.Logf("%d runs, %d random actions, %d acquisitions, max bypass in the quiet phase %d, longest quiet-phase wait %v",
		st.runs, st.actions, st.acquisitions, st.maxBypass, st.maxWait)
	if st.groups.calls > 0 {
		g := st.groups
		t.Logf("group calls: %d (%d tries, %d of them busy; %d cancelled; %d refused as invalid); %d acquisitions with flags; largest plan %d members; most overtakes of one quiet-phase wait %d; longest quiet-phase wait that acquired %v",
			g.calls, g.tries, g.triesBusy, g.cancelled, g.invalid, g.flagged, g.maxMembers, g.maxOvertakes, g.maxWait)
	}
	if f.deadlock {
		t.Logf("ErrDeadlock reports, each with a cycle in the history: %d", st.deadlocks)
	}
	if f.cohort != nil && f.starvationFree {
		t.Logf("cohort: %d locks returned, %d of them handed over in memory, %d store holds extended past the bound (%d of them followed by another owner's grant); bounds: wait %v, bypass %d",
			st.grants, st.localHandoffs, st.extensions, st.followed, f.cohort.waitBound(), f.cohort.bypassBound(len(f.kinds)*f.cohort.perProcess))
	} else if f.cohort != nil {
		t.Logf("cohort: %d locks returned, %d of them handed over in memory, %d store holds extended past the bound (%d of them followed by another owner's grant)",
			st.grants, st.localHandoffs, st.extensions, st.followed)
	}
	if st.handovers > 0 {
		t.Logf("handovers: %d tokens shared, %d adopted", st.handovers, st.adoptions)
	}
	if f.cohort != nil && f.transfer {
		c := st.cohortTransfer
		t.Logf("sharing with local handoff: %d shares with a goroutine of the giver's process waiting, %d adopted ones left with one waiting, %d with none by a Locker that retains; %d adoptions beside a waiting goroutine of the adopter's process, %d beside a line with a waiter behind its turn",
			c.sharedInLine, c.leftInLine, c.leftRetaining, c.adoptedBesideWaiter, c.adoptedBesideLine)
	}
	if st.wake.sent > 0 {
		t.Logf("wake-ups: %+v", st.wake)
	}
	if st.handoffs > 0 {
		t.Logf("handoffs: %d acknowledged, %d acquisitions made by one (by its grant or one confirming read)", st.handoffs, st.handedHolds)
	}
	if st.stormArrivals > 0 {
		t.Logf("storm processes: %d Locks, %d of them acquired (counted above)", st.stormArrivals, st.stormAcquisitions)
	}
	return st
}

func TestLegacyFleet_MutualExclusionAndDeadlockFreedom(t *testing.T) { checkFleet(t, "legacy") }

func TestNewFleet_MutualExclusionAndStarvationFreedom(t *testing.T) { checkFleet(t, "new") }

func TestNewWakeFleet_MutualExclusionBypassAndProgressUnderWakeUpFaults(t *testing.T) {
	checkFleet(t, "new/wake")
}

func TestNewHandoffFleet_MutualExclusionBypassAndProgressWithHandoffs(t *testing.T) {
	checkFleet(t, "new/handoff")
}

// TestNewHandoffFleet_FromTheFirstHandoff runs the handoff fleet's random
// phase from its first handoff (variant.fromHandoff), at the slow weights:
// the schedules the HandoffFromRead control searches — waiters confirming
// late, or falling back to a claim — with correct Lockers.
func TestNewHandoffFleet_FromTheFirstHandoff(t *testing.T) {
	checkFleetVariant(t, "new/handoff", variant{fromHandoff: true, noFencing: true, weights: &slowWeights})
}

// TestNewHandoffFleet_ShortHoldsHeldByGrants runs the handoff fleet with
// steps of work of 50 ms: its handoffs come within a lease window of the
// queue-cell write they name, so most are held by the grant alone
// (docs/algorithms.md, section 4.12), which the fleet's one-second steps
// never allow.
func TestNewHandoffFleet_ShortHoldsHeldByGrants(t *testing.T) {
	checkFleetVariant(t, "new/handoff", variant{stepOfWork: 50 * time.Millisecond})
}

func TestNewFleetTwoGoroutinesOneLocker_MutualExclusionAndStarvationFreedom(t *testing.T) {
	checkFleet(t, "new/two-goroutines")
}
