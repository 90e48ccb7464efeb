package propertytests

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/cohort"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The cohort fleet: local handoff (queuelock.Options.LocalHandoff,
// internal/cohort; docs/algorithms.md, section 4.15). Three processes each
// run two user goroutines on one queue Locker with local handoff on, so
// an Unlock is often met by a waiter of its own process and hands the store
// hold over in memory. Besides every property of the "new" fleet, checked
// after every step:
//
//   - C1, exclusion with in-memory grants: at most one goroutine holds the
//     id with Lost() open, whether or not the holders share an owner (the
//     other fleets count one owner once: a shared lock's holders).
//   - C2, tokens strictly increase in grant order: every lock returned,
//     locally handed or taken in the store, carries a token above that of
//     the lock returned before it.
//
// And in the quiet phase, C3: every waiter acquires within waitBound,
// the "new" fleet's bound plus what local handoffs may add (the remote
// waiters' bound of section 4.15), and is bypassed at most bypassBound
// times.

// cohortBound is the fleet's Options.LocalHandoff.
const cohortBound = 2

// cohortSpec is a cohort fleet's shape.
type cohortSpec struct {
	processes  int  // the fleet's processes (len(fleet.kinds))
	perProcess int  // user goroutines per process
	bound      int  // Options.LocalHandoff
	retain     bool // Options.Retain is cohortRetain (cohortretain_test.go)
}

// holdTime bounds one holding in the quiet phase: the work, then a
// release and the next claim a few polls apart.
func holdTime() time.Duration { return time.Duration(workSteps)*workStep + 2*poll }

// waitBound is C3's bound: livenessBound, scaled by the goroutines per
// process (each process's goroutines take the id one after another in
// process, as in the "new/two-goroutines" fleet), plus, per store hold of
// another process that may precede the waiter's — each other process once
// with a cell named before it saw ours and once more (bypassBound) — bound
// local handoffs of holdTime each.
//
// At its bound with a local waiter, a store hold goes on with a fresh
// block if a look at the store, sent lookAhead grants before the bound,
// saw nobody else waiting (extension; section 4.15, Theorem 4b): each of
// those store holds waits for at most one look at its bound, and the one
// that holds when our queue cell is written may be extended once more, by
// a look sent before that write, for the rest of the block that look was
// sent in (lookAhead holds) and bound+1 more holds and a draw and a second
// look. A look, and a draw with the look
// after it, each take less than a Poll in the quiet phase (as
// retainDetection assumes of two reads and a delete). With one goroutine
// per process no waiter is ever in a line, nothing is extended, and the
// bound stays Theorem 4a's.
//
// With retention each of those store holds may also be kept, with no
// holder, until it sees the waiter or its window ends: min(Retain,
// retainDetection) more.
func (c cohortSpec) waitBound() time.Duration {
	others := bypassBound(c.processes) // store holds of other processes that may precede ours
	b := time.Duration(c.perProcess)*livenessBound + time.Duration(others*c.bound)*holdTime()
	if c.perProcess > 1 { // extension
		b += time.Duration(others)*poll + time.Duration(c.bound+1+c.lookAhead())*holdTime() + poll
	}
	if c.retain {
		b += time.Duration(others) * min(cohortRetain(), retainDetection())
	}
	return b
}

// bypassBound is C3's bypass bound over n goroutines: each acquisition
// the plain bound allows may be followed by bound local handoffs, and, with
// more than one goroutine per process, the store hold that holds when the
// waiter's queue cell is written by the lookAhead grants after its look
// and bound+1 more grants of one extension.
func (c cohortSpec) bypassBound(n int) int {
	if c.perProcess > 1 {
		return (c.bound+1)*(bypassBound(n)+1) + c.lookAhead()
	}
	return (c.bound + 1) * bypassBound(n)
}

// lookAhead is how many grants of a block, its last included, follow the
// sending of its look at the store (cohort.LookLead, or the whole block's
// local grants for a smaller bound).
func (c cohortSpec) lookAhead() int { return min(c.bound, cohort.LookLead) }

var (
	queueCohort = kind{name: "new-cohort", mode: lockstep.ModeNew, new: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
		l, err := queuelock.New(p.Store(), &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Poll: poll, MaxClockSkew: maxClockSkew,
			Clock: k.clock(p.Clock()), ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), Fencing: fencing,
			TestingKnobs: k.queue, LocalHandoff: cohortBound})
		if err != nil {
			return nil, nil, err
		}
		return l, l.Close, nil
	}}
	// Three processes, so that the random phase's crashes, which keep two
	// user goroutines alive, leave a process running. A schedule costs
	// about seven of "new" in the seeded sweep (six goroutines, a quiet
	// phase of waitBound), which runs one in sweepDivisor.
	cohortFleet = fleet{name: "new/cohort", kinds: []kind{queueCohort, queueCohort, queueCohort}, starvationFree: true,
		cohort: &cohortSpec{processes: 3, perProcess: 2, bound: cohortBound}, sweepDivisor: 10}
)

// combinedOrNewCohort is combinedOrNew (modes_test.go) with local handoff:
// a lock handed over keeps the mode it was taken in, whatever the flag
// says by then.
var combinedOrNewCohort = migrationKindWith("combined|new/cohort", [2]lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew},
	func(i int) lockstep.Mode {
		if i%2 == 0 {
			return lockstep.ModeCombined
		}
		return lockstep.ModeNew
	}, true, nil, cohortBound)

// cohortSwitchingFleet is the cohort fleet of migration Lockers whose flags
// flip between combined and new (at every acquisition, and by the random
// phase's switchMode), in phase new.
var cohortSwitchingFleet = fleet{name: "combined+new/switching-cohort", kinds: []kind{combinedOrNewCohort, combinedOrNewCohort, combinedOrNewCohort},
	starvationFree: true, extraFault: switchMode, setup: phaseAt(lockstep.ModeNew),
	cohort: &cohortSpec{processes: 3, perProcess: 2, bound: cohortBound}, sweepDivisor: 20}

// addCohortUsers starts the other user goroutines of first's process, on
// its Locker: perProcess − 1 more of user, or one of each of its kind's
// others (none if that is empty but not nil).
func (h *harness) addCohortUsers(first *proc, user func(context.Context, *proc)) {
	users := make([]func(context.Context, *proc), h.f.cohort.perProcess-1)
	for i := range users {
		users[i] = user
	}
	if o := first.kind.others; o != nil {
		users = users[:0]
		for _, u := range o {
			users = append(users, func(ctx context.Context, pr *proc) { u(h, ctx, pr) })
		}
	}
	for _, u := range users {
		pr := &proc{sp: first.sp, kind: first.kind, locker: first.locker, closer: first.closer}
		h.procs = append(h.procs, pr)
		first.sp.Go(func(ctx context.Context) { u(ctx, pr) })
	}
}

// cohortState is what C2 knows: per id, the latest lock returned.
type cohortState struct {
	last             map[string]grantSeen
	grants, handoffs int                 // locks returned; those handed over in memory
	tr               cohortTransferState // sharing with local handoff (cohorttransfer_test.go)
	// extensions counts the store holds that went on in memory past their
	// bound (internal/cohort's extend): a run of one owner's grants longer
	// than bound+1, one per bound+1 grants after the first block.
	extensions int
	// followed counts the extended store holds whose next grant went to
	// another owner (a remote successor, or the line's next from the store):
	// the grants C2 compares across an extended block.
	followed int
}

type grantSeen struct {
	owner string
	token int64
	run   int // grants of owner in a row, this one included
}

func newCohortState() *cohortState { return &cohortState{last: map[string]grantSeen{}} }

// checkGrantOrder checks C2 for the lock l that pr was just returned; the
// caller holds h.mu. A lock handed over in memory keeps its predecessor's
// owner (one store hold); it counts as a handoff.
func (h *harness) checkGrantOrder(pr *proc, l lockstep.Lock) {
	row := h.row(pr, l.ID())
	prev, seen := h.co.last[row]
	h.co.grants++
	cur := grantSeen{owner: l.Owner(), run: 1}
	if seen && prev.owner != l.Owner() && prev.run > h.f.cohort.bound+1 {
		h.co.followed++
	}
	if seen && prev.owner == l.Owner() {
		h.co.handoffs++
		cur.run = prev.run + 1
		if (cur.run-1)%(h.f.cohort.bound+1) == 0 {
			h.co.extensions++ // the first grant of a fresh block
		}
	}
	f, ok := l.(lockstep.Fenced)
	if ok && !h.v.noFencing {
		cur.token = f.Token()
		if seen && cur.token <= prev.token {
			h.violate("fencing: tokens out of grant order: %s got %s's lock of %q with token %d after %s's token %d",
				pr.sp.Name, l.Owner(), row, cur.token, prev.owner, prev.token)
		}
	} // else checkToken reports a missing token
	h.co.last[row] = cur
}

// handedOn reports whether l's Unlock handed its store hold to another
// goroutine of its Locker (internal/cohort): its owner's cells stay, and
// are rightly renewed after that Unlock.
func handedOn(l lockstep.Lock) bool {
	hl := held.Of(l)
	if hl == nil || len(hl.Parts()) != 1 {
		return false
	}
	g, ok := hl.Parts()[0].(interface{ HandedOn() bool })
	return ok && g.HandedOn()
}

// TestNewCohortFleet_ExclusionTokenOrderAndRemoteWaitWithLocalHandoff
// checks C1–C3 beside every property of the "new" fleet. A schedule costs
// about four of "new" (six user goroutines), so CI's deep run gives it a
// quarter of the checks.
func TestNewCohortFleet_ExclusionTokenOrderAndRemoteWaitWithLocalHandoff(t *testing.T) {
	checkFleetDepth(t, "new/cohort", variant{}, deepChecks/4)
}

// TestCohortSwitching_LocalHandoffAcrossModeSwitches checks C1–C3 on
// migration Lockers whose flags flip while locks are handed over. A
// schedule costs about twice one of "new/cohort" (100 s at CI's 1,000
// checks), so its name keeps it out of CI's model-rapid stage ('Fleet'):
// it runs in the unit run and in the seeded sweep (one in sweepDivisor,
// 20).
func TestCohortSwitching_LocalHandoffAcrossModeSwitches(t *testing.T) {
	checkFleetDepth(t, "combined+new/switching-cohort", variant{}, deepChecks/4)
}
