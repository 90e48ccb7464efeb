package propertytests

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/lockstep-go/lockstep"
)

// The cohort-transfer fleet: sharing a locally handed lock
// (docs/algorithms.md, section 4.15, "Sharing a grant", and section 8.7).
// The transfer fleet's givers and successor (transferfleet_test.go) on
// queue Lockers with local handoff (cohort_test.go): a giver process of
// two giver goroutines, so a holder that shares its lock often has the
// other goroutine of its process waiting behind it in the line; a giver
// process of one, whose Locker also retains (cohortretain_test.go), so a
// shared lock it leaves meets retention with nobody waiting; and a
// successor process whose adopting goroutine runs beside two plain users of
// the same Locker and id, so an Adopt often meets a line of that process
// (a goroutine taking the id from the store, another waiting behind it). The properties are the transfer fleet's and the cohort
// fleet's together:
//
//   - C1 with sharing, checked after every step: at most one holding of
//     the id has Lost() open, the giver of a shared lock and its adopter
//     counting as one holding, and any lock granted beside them as another,
//     whether or not it carries their owner (a grant handed in memory
//     does: one store hold);
//   - C2, tokens in grant order over the locks Lock returns; the adopter
//     carries the giver's token (the transfer property);
//   - the lease, ownership, owner-cell and fencing properties, each holder
//     of a shared owner judged on its own owner cell and lease;
//   - in the quiet phase, a handover begun there succeeds and its giver
//     keeps its lease until it leaves, and someone acquires within the
//     bound while processes wait (deadlock freedom, as on the transfer
//     fleet: a shared lock is held until its giver and its adopter have
//     both left, which the cohort fleet's per-waiter bound does not
//     cover).
//
// The control (negative_cohort_planted_test.go): CohortHandOnShared,
// caught by C1 — the shared grant's Unlock hands the store hold to the
// waiting goroutine (p0), or keeps it for the giver's next Lock (p1), which
// then holds beside the adopter.

// retainGiverName names cohortRetainGiverKind.
const retainGiverName = "new-cohort-retain/giver"

var (
	cohortGiverKind = kind{name: "new-cohort/giver", mode: lockstep.ModeNew, new: queueCohort.new, user: transferGiver}
	// cohortRetainGiverKind's Locker also has Retain (cohortretain_test.go)
	// and one giver goroutine, which locks again at once after a handover:
	// a shared grant it leaves has nobody of its process waiting, and must
	// not be kept for that next Lock, which would otherwise claim it in
	// memory before the retained hold's first look sees the other
	// processes' waiters.
	cohortRetainGiverKind = kind{name: retainGiverName, mode: lockstep.ModeNew, new: queueCohortRetain.new, user: relockingGiver,
		others: []func(*harness, context.Context, *proc){}}
	cohortSuccessorKind = kind{name: "new-cohort/successor", mode: lockstep.ModeNew, new: queueCohort.new, user: successor,
		others: []func(*harness, context.Context, *proc){plainUser, plainUser}}
	// The successor process is last, as the transfer fleet's code expects.
	// A schedule costs about twice one of "new" (six goroutines), so the
	// seeded sweep runs one in sweepDivisor, as on "new/transfer".
	cohortTransferFleet = fleet{name: "new/cohort-transfer", kinds: []kind{cohortGiverKind, cohortRetainGiverKind, cohortSuccessorKind},
		transfer: true, cohort: &cohortSpec{processes: 3, perProcess: 2, bound: cohortBound}, sweepDivisor: 4}
)

// relockingGiver is transferGiver that locks again at once after a
// holding it handed over.
func relockingGiver(h *harness, ctx context.Context, pr *proc) { giveEveryOther(h, ctx, pr, 0) }

// plainUser is harness.user as a kind's user.
func plainUser(h *harness, ctx context.Context, pr *proc) { h.user(ctx, pr) }

// cohortTransferState counts how often the cohort-transfer fleet reached
// the states it is for; guarded by harness.mu.
type cohortTransferState struct {
	// sharedInLine counts the Shares made while another goroutine of the
	// giver's process waited for the id (in its line), leftInLine the
	// shared grants whose giver left, its handover adopted, with one
	// waiting: the Unlocks that must not hand the store hold on; and
	// leftRetaining those left with none waiting by a Locker with Retain:
	// the Unlocks that must not keep it.
	sharedInLine, leftInLine, leftRetaining int
	// adoptedBesideWaiter counts the adoptions made while a goroutine of
	// the adopting process waited for the id; adoptedBesideLine those
	// made while the line had a waiter behind its turn (one goroutine
	// holding or waiting, another waiting).
	adoptedBesideWaiter, adoptedBesideLine int
}

func (s *cohortTransferState) add(o cohortTransferState) {
	s.sharedInLine += o.sharedInLine
	s.leftInLine += o.leftInLine
	s.leftRetaining += o.leftRetaining
	s.adoptedBesideWaiter += o.adoptedBesideWaiter
	s.adoptedBesideLine += o.adoptedBesideLine
}

// siblings returns how many other goroutines of pr's process wait for the
// id and how many hold it; the caller holds h.mu.
func (h *harness) siblings(pr *proc) (waiting, holding int) {
	for _, q := range h.procs {
		if q == pr || q.sp != pr.sp || q.sp.Crashed() {
			continue
		}
		switch {
		case q.waiting:
			waiting++
		case q.holding != nil:
			holding++
		}
	}
	return waiting, holding
}

// noteSharedInLine counts pr's Share if a goroutine of its process waits;
// the caller holds h.mu.
func (h *harness) noteSharedInLine(pr *proc) {
	if w, _ := h.siblings(pr); w > 0 {
		h.co.tr.sharedInLine++
		h.event("%s shares with a goroutine of its process waiting", pr.sp.Name)
	}
}

// noteLeaveInLine counts pr's leave of an adopted share if a goroutine of
// its process waits, or else if its Locker retains; the caller holds h.mu.
func (h *harness) noteLeaveInLine(pr *proc) {
	switch w, _ := h.siblings(pr); {
	case w > 0:
		h.co.tr.leftInLine++
	case pr.kind.name == retainGiverName:
		h.co.tr.leftRetaining++
	}
}

// noteAdoptedInLine counts pr's adoption beside its process's waiters; the
// caller holds h.mu.
func (h *harness) noteAdoptedInLine(pr *proc) {
	w, held := h.siblings(pr)
	if w > 0 {
		h.co.tr.adoptedBesideWaiter++
	}
	if w > 0 && w+held >= 2 {
		h.co.tr.adoptedBesideLine++
		h.event("%s adopts beside a line of its process", pr.sp.Name)
	}
}

// TestNewCohortTransferFleet_SharingALocallyHandedLockKeepsExclusion checks
// C1 with sharing, C2 and the transfer fleet's properties with local
// handoff.
func TestNewCohortTransferFleet_SharingALocallyHandedLockKeepsExclusion(t *testing.T) {
	checkFleet(t, "new/cohort-transfer")
}

// chooseBy is a sim.Chooser answering each label with a fixed value (0 for
// any other).
type chooseBy map[string]int

func (c chooseBy) Choose(label string, n int) int { return min(c[label], n-1) }

// The successor process has three goroutines: once both giver processes
// crashed, the random phase must not crash it too, though three goroutines
// are live (a run with no process left fails as "nothing can ever run
// again", which a deep run of this fleet met).
func TestCohortTransferFleet_ACrashLeavesAProcessRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, err := newHarness(fleetNamed("new/cohort-transfer"), variant{}, false)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = h.close() }()
		last := len(h.procs) - 1 // a goroutine of the successor process
		for _, pr := range h.procs {
			if pr.sp != h.procs[last].sp && !pr.sp.Crashed() {
				h.s.Crash(pr.sp)
			}
		}
		if n := len(h.live()); n != 3 {
			t.Fatalf("%d goroutines live after the givers crashed, want the successor process's 3", n)
		}
		if h.fault(chooseBy{"fault": 3, "process": last}) || h.procs[last].sp.Crashed() {
			t.Fatal("the random phase crashed the last running process")
		}
	})
}
