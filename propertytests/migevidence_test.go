package propertytests

import (
	"testing"

	"github.com/lockstep-go/lockstep"
)

// Evidence-ordered fencing across modes (docs/algorithms.md, sections 5.3
// and 6): migration Lockers in phase new, every one with
// Queue.Evidence = EvidenceUse. A lock of mode new draws its token beside
// its claim; a lock of mode combined draws its own once both halves are
// held, through the process's one clock.Global, and its queue half records
// it with every release, delete or overwrite of its owner cell. So the
// claim of a lock of mode new whose draw's read was served before a
// combined holder's draw returned, and that wins once that holder has
// released, must find the combined token in the evidence its read returns,
// and draw again. Property 4 (fencing_test.go) is what must hold.

// migEvidenceKind is a migration.Locker process whose flag gives mode new
// to the race's late claimer (raceProc) and mode combined to the others;
// the random phase flips it (switchMode) between the two.
var migEvidenceKind = migrationKind("combined|new", [2]lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew}, func(i int) lockstep.Mode {
	if i == raceProc {
		return lockstep.ModeNew
	}
	return lockstep.ModeCombined
}, false)

// migEvidenceFleet is three migration Lockers in phase new, run at
// EvidenceUse from the race (migEvidenceVariant): p0, of mode combined,
// holds with the larger token while p1's claim of mode new is in flight
// with its draw beside it already served; p2, of mode combined, starts
// in the random phase.
var migEvidenceFleet = fleet{name: "combined+new at evidence", kinds: []kind{migEvidenceKind, migEvidenceKind, migEvidenceKind},
	starvationFree: true, extraFault: switchMode, setup: phaseAt(lockstep.ModeNew)}

// migEvidenceVariant is the evidence fleet's variant: EvidenceUse, which
// reaches every migration Locker's queue Locker (modes_test.go), steps of
// work of 50 ms, and the random phase from the race (evidencerace_test.go
// builds it with a combined holder).
var migEvidenceVariant = evidenceVariant

// migEvidenceChecks and deepMigEvidenceChecks are the fleet's rapid checks
// by default and under LOCKSTEP_DEEP=1.
const migEvidenceChecks, deepMigEvidenceChecks = 250, 3000

// TestMigrationEvidenceFleet_TokenOrderAcrossCombinedAndNew runs the fleet
// (property 4 above all) and logs, besides the evidence fleet's counts,
// how many locks of mode new followed a combined holder, how many of them
// kept their early token, and how many drew again because their draw
// beside the claim had missed the combined holder's token: the cross-mode
// race. Under LOCKSTEP_DEEP=1 a run that never reaches it checked nothing
// of evidence across modes, so the test fails then.
func TestMigrationEvidenceFleet_TokenOrderAcrossCombinedAndNew(t *testing.T) {
	st := checkFleetOf(t, migEvidenceFleet, migEvidenceVariant, migEvidenceChecks, deepMigEvidenceChecks)
	e := st.evidence
	logEvidence(t, e)
	t.Logf("across modes: %d tokens of combined locks (drawn after both halves); %d locks of mode new after a combined holder, %d of them kept the token drawn beside the claim, %d drew again after a draw beside it that had missed the combined holder's token",
		e.combined, e.afterCombined, e.keptAfterCombined, e.redrawnMissedCombined)
	if deep && (e.keptAfterCombined == 0 || e.redrawnMissedCombined == 0) {
		t.Errorf("the fleet never reached the cross-mode case evidence protects (kept %d early tokens after a combined holder; %d early draws missed a combined holder's token and were drawn again)", e.keptAfterCombined, e.redrawnMissedCombined)
	}
}
