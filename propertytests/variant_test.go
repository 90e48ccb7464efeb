package propertytests

import (
	"time"

	"github.com/lockstep-go/lockstep/queuelock"
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
	// stepOfWork, when set, is how long one step of work lasts instead of
	// workStep: short holds, for a fleet whose handoffs must come within a
	// lease window of the queue-cell write they name to be held by (a
	// grant or a confirmation, docs/algorithms.md section 4.12), which
	// holds of workSteps steps of workStep never do.
	stepOfWork time.Duration
	// stepFirst steps the first process's wall clock by this much before
	// anything runs, as the random phase's clock-step fault would: for a
	// control whose defect needs a stepped clock and then time to pass.
	stepFirst time.Duration
	// fromHandoff starts the random phase where a fair run's first handoff
	// write is about to be sent (handoff_test.go): for a control whose defect shows only in what happens between a
	// handoff and its confirmation, which the random phase, whose holders
	// seldom keep their leases long enough to hand over, does not reach.
	fromHandoff bool
	// evidence is queuelock.Options.Evidence of every queue Locker the
	// fleet's "new" processes build, and migration.Options.Queue.Evidence
	// of its migration processes (evidence_test.go, migevidence_test.go):
	// EvidenceUse draws each token of mode new beside its claim, and a
	// combined lock's queue half records the combined token. It needs
	// fencing (not noFencing).
	evidence queuelock.Evidence
	// fromRace starts the random phase where the second process, having
	// held the lock alone once, sends its next claim while the first
	// process's first claim waits unserved, and the first process then
	// holds with the larger token (evidencerace_test.go; a combined first
	// process takes both halves before that claim): for the race evidence
	// is for, which the random phase from the start does not reach.
	fromRace bool
	// fromRollback starts the random phase where a fixed schedule of the
	// rollback fleet (rollbackprefix_test.go) has taken a lock of mode new
	// that drew values ahead, rolled the phase back to legacy, taken a
	// legacy lock with a later token, and moved the phase forward to new
	// again: for a lock of mode new that must not take those values,
	// which the random phase from the start does not reach.
	fromRollback bool
}
