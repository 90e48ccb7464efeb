package propertytests

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// maxShrunkActions bounds the random-phase actions of a negative control's
// shrunk counterexample.
const maxShrunkActions = 12

// controlChecks is how many checks a negative control may take by default.
const controlChecks = 3000

// controlShrinkTime caps rapid's own shrinking of a control's counterexample
// (its default is 30 s); minimize finishes the job in well under a second.
const controlShrinkTime = "5s"

// recordingTB is a rapid.TB that records failures instead of failing the
// test, so a test can assert that rapid caught a planted bug.
type recordingTB struct {
	*testing.T
	mu     sync.Mutex
	failed bool
	msgs   []string
}

func (r *recordingTB) record(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.msgs = append(r.msgs, s)
}

func (r *recordingTB) Errorf(format string, args ...any) { r.record(fmt.Sprintf(format, args...)) }
func (r *recordingTB) Error(args ...any)                 { r.record(fmt.Sprint(args...)) }
func (r *recordingTB) Fatalf(format string, args ...any) { r.record(fmt.Sprintf(format, args...)) }
func (r *recordingTB) Fatal(args ...any)                 { r.record(fmt.Sprint(args...)) }
func (r *recordingTB) FailNow()                          { r.record("FailNow") }
func (r *recordingTB) Fail()                             { r.record("Fail") }
func (r *recordingTB) Logf(string, ...any)               {}
func (r *recordingTB) Log(...any)                        {}
func (r *recordingTB) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// control is a negative control: a deliberately broken fleet or algorithm
// that the checker must catch with a failure of the given property.
type control struct {
	name  string
	fleet fleet
	v     variant
	want  string // prefix of the failure: the property that must catch it
	// pending, when set, says why this control is not yet asserted: the
	// random schedules do not reach the bug often enough to catch it within
	// the check budget. Such a control is skipped, visibly, not passed.
	pending string
	// keep, when set, names the regression seed the control's shortest
	// counterexample is kept as (testdata/regressions/<keep>.json, written
	// when LOCKSTEP_KEEP=1), and found says how the bug was found and fixed.
	keep, found string
	// attempts, when set, replaces controlAttempts: for a defect whose
	// short counterexample the shorter searches find only now and then.
	attempts int
	// shortSteps, when set, is the random phase's length in the later
	// searches instead of 10 actions.
	shortSteps int
	// maxActions, when set, replaces maxShrunkActions: for a defect whose
	// shortest counterexample needs more actions (a clock step, then time
	// passing with no renewal granted, then a work step).
	maxActions int
	// exhibit, when set, says the control has a kept counterexample that
	// every run replays first (exhibit_test.go): for a defect the searches
	// miss now and then, so that the verdict does not hang on the run's luck.
	exhibit bool
	// exhibitOnly, when set, says why a control with an exhibit runs no
	// search (but when a new exhibit is being kept): the searches of its
	// fleet reach the defect too seldom to be worth their minute of CI.
	exhibitOnly string
}

var controls = []control{
	{name: "SkipOwnerReread", fleet: fleetNamed("new"),
		v: variant{bugs: switches{SkipOwnerReread: true}, noLeaseCheck: true, noFencing: true}, want: "mutual exclusion:", exhibit: true},
	{name: "ReuseTombstonedTimestamp", fleet: fleetNamed("new"),
		v: variant{bugs: switches{ReuseTombstonedTimestamp: true}, noLeaseCheck: true}, want: "liveness:"},
	{name: "QueueCellsWithoutTTLAndCrashedWaiter", fleet: fleetNamed("new"),
		v: variant{bugs: switches{QueueCellsWithoutTTL: true}, noLeaseCheck: true, noStateCheck: true}, want: "liveness:"},
	{name: "LegacyAndNewFleet", fleet: fleet{name: "legacy+new", kinds: []kind{legacy, queue, queue}, starvationFree: true},
		v: variant{noLeaseCheck: true, noFencing: true}, want: "mutual exclusion:"},
	// The storm processes' fast claims, no longer held back by the
	// contention hint, fail the queue head's claims until it has waited
	// beyond the bound (storm_test.go).
	{name: "IgnoreContentionHint", fleet: fleetNamed("new+storm"),
		v: variant{stormBugs: switches{IgnoreContentionHint: true}, noLeaseCheck: true}, want: "liveness:"},
	// A wake-up taken for a grant: a signed forged (or late) wake-up lets a
	// waiter hold beside the holder (wake_test.go).
	{name: "WakeGrants", fleet: fleetNamed("new/wake"),
		v: variant{bugs: switches{WakeGrants: true}, noLeaseCheck: true, noFencing: true, weights: &netWeights}, want: "mutual exclusion:",
		attempts: 6, exhibit: true},
	// Waiters that stop polling when wake-ups are on: the quiet phase loses
	// every wake-up, and the line stalls.
	{name: "WakeOnly", fleet: fleetNamed("new/wake"),
		v: variant{bugs: switches{WakeOnly: true}, noLeaseCheck: true}, want: "liveness:"},
}

// TestNegative_ControlsAreCaughtAndShrunk runs rapid on each planted bug with
// a recording TB and asserts it is caught, by the intended property, and
// shrunk to at most maxShrunkActions actions: rapid shrinks the draws, then
// minimize deletes whole actions from the script rapid replayed last (see
// minimize for why both). The minimized script is replayed and must still
// fail the same way, so the reported counterexample is a real one.
//
// Unless -rapid.checks (or RAPID_CHECKS) says otherwise, controls run up to
// controlChecks checks (rapid stops at the first failure), whatever
// LOCKSTEP_DEEP says; unless -rapid.shrinktime does, rapid's shrinking is
// capped at controlShrinkTime, which the minimizer makes up for.
func TestNegative_ControlsAreCaughtAndShrunk(t *testing.T) {
	defer setFlag(t, "rapid.nofailfile", "true")()
	defer rapidDefault(t, "rapid.checks", strconv.Itoa(controlChecks))()
	defer rapidDefault(t, "rapid.shrinktime", controlShrinkTime)()
	for _, c := range controls {
		t.Run(c.name, func(t *testing.T) {
			if c.pending != "" {
				t.Skip("not yet asserted: " + c.pending)
			}
			if !plantedBuild && (c.v.bugs != (switches{}) || c.v.stormBugs != (switches{}) || len(c.v.plant) > 0) {
				t.Skip("planted-defect controls run in the -tags lockstep_bugs build (CI's model-negative stage)")
			}
			// rapid's shrinking and minimize are both local searches; a
			// counterexample can settle in a long local minimum (24 actions
			// once, for a bug 4 actions reach). So a control gets up to
			// controlAttempts independent searches, later ones with shorter
			// random phases, and keeps the shortest counterexample.
			var best, searched script
			var bestErr error
			caught := false // by a search (an exhibit aside)
			limit := maxShrunkActions
			if c.maxActions > 0 {
				limit = c.maxActions
			}
			attempts := controlAttempts
			if c.attempts > 0 {
				attempts = c.attempts
			}
			keep := os.Getenv("LOCKSTEP_KEEP_EXHIBIT") == "1"
			if c.exhibit && !keep {
				// The exhibit gives the verdict; the searches only report
				// how well the checker finds the defect unaided, and a
				// missed search of these costs a minute or more of CI.
				attempts = min(attempts, exhibitSearches)
				if c.exhibitOnly != "" {
					attempts = 0
					t.Logf("no search: %s", c.exhibitOnly)
				}
			}
			if c.exhibit {
				w, err := checkExhibit(t, c, limit)
				switch {
				case err != nil:
					t.Fatal(err)
				case w.sc == nil && !keep:
					t.Fatalf("control %s has no exhibit %s; keep one: LOCKSTEP_KEEP_EXHIBIT=1 go test -tags lockstep_bugs ./propertytests -run 'Negative/%s$'", c.name, exhibitPath(c.name), c.name)
				case w.sc != nil:
					t.Logf("exhibit %s: caught by %q in %d actions: %s", exhibitPath(c.name), strings.TrimSuffix(c.want, ":"), len(w.sc), firstLine(w.err))
					best, bestErr = w.sc, w.err
				}
			}
			for i := range attempts {
				small, shrunk, err := catchControl(t, c, i > 0)
				if err != nil && retryable(err) && (i < attempts-1 || bestErr != nil) {
					// Each search is random: a later one, or one with
					// shorter random phases, may miss what another finds.
					// Only a control no search catches fails; one an
					// earlier search caught is judged by its shortest
					// counterexample.
					t.Logf("attempt %d: %v", i+1, err)
					continue
				}
				if err != nil && c.exhibit && bestErr != nil && !keep {
					// The exhibit gave the verdict: a search that a defect
					// made fail by another property first (a double grant
					// before the ownership check sees the rewrite) is a
					// report, as a missed one is.
					t.Logf("attempt %d: %v", i+1, err)
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("attempt %d: caught by %q; rapid shrank it to %d actions, minimize to %d: %v\n%s",
					i+1, strings.TrimSuffix(c.want, ":"), len(shrunk), len(small.sc), small.sc, firstLine(small.err))
				if !caught || len(small.sc) < len(searched) {
					searched, caught = small.sc, true
				}
				if bestErr == nil || len(small.sc) < len(best) {
					best, bestErr = small.sc, small.err
				}
				if len(searched) <= limit {
					break
				}
			}
			if bestErr == nil {
				t.Fatalf("planted bug %s not caught in %d searches", c.name, attempts)
			}
			if !caught && attempts > 0 {
				t.Logf("no search caught %s in %d; its exhibit does", c.name, attempts)
			}
			if c.exhibit && keep && caught && len(searched) <= limit && len(searched) == len(best) {
				keepExhibit(t, c, searched)
			}
			if len(best) > limit {
				t.Fatalf("counterexample of %d actions, above %d:\n%v", len(best), limit, bestErr)
			}
			if c.keep != "" && os.Getenv("LOCKSTEP_KEEP") == "1" {
				keepRegression(t, c, best)
			}
		})
	}
}

// controlAttempts is how many independent searches a control gets to find a
// counterexample of at most maxShrunkActions actions.
const controlAttempts = 3

// exhibitSearches caps the searches of a control with an exhibit
// (exhibit_test.go), but when a new exhibit is being kept.
const exhibitSearches = 1

// failure is a minimized counterexample and the failure it replays to.
type failure struct {
	sc  script
	err error
}

// retryable reports whether a control's search failed in a way a later
// search may not: the bug was not caught. A failing script that does not
// fail again on replay is not retried: the simulator replays exactly
// (model/sim), so that is a bug of the checker, reported as one. (It
// happened in CI before the simulator named its goroutines, and again
// before it told OnStore of a finished request ahead of releasing the
// request's caller: the caller could run beside the checker's bookkeeping.)
func retryable(err error) bool {
	msg := err.Error()
	return strings.HasSuffix(msg, "not caught")
}

// catchControl runs rapid on control c with a recording TB, asserts it is
// caught by the intended property, and minimizes the counterexample rapid
// replayed last. short asks for shorter random phases (rapid.steps 10).
func catchControl(t *testing.T, c control, short bool) (small failure, shrunk script, err error) {
	if short {
		steps := 10
		if c.shortSteps > 0 {
			steps = c.shortSteps
		}
		defer setFlag(t, "rapid.steps", strconv.Itoa(steps))()
	}
	rec := &recordingTB{T: t}
	rapid.Check(rec, fleetProperty(t, c.fleet, c.v, nil, &shrunk))
	if !rec.Failed() {
		return failure{}, nil, fmt.Errorf("planted bug %s not caught", c.name)
	}
	first := strings.Join(rec.msgs, "\n")
	if !strings.Contains(first, "failed after") || !strings.Contains(first, c.want) {
		return failure{}, nil, fmt.Errorf("planted bug %s caught, but not by %q:\n%s", c.name, c.want, first)
	}
	sc, ferr := minimize(t, c.fleet, c.v, shrunk, c.want)
	if ferr == nil {
		return failure{}, nil, fmt.Errorf("planted bug %s: the minimized script passes", c.name)
	}
	if !strings.HasPrefix(ferr.Error(), c.want) {
		return failure{}, nil, fmt.Errorf("planted bug %s: %v", c.name, ferr)
	}
	return failure{sc, ferr}, shrunk, nil
}
