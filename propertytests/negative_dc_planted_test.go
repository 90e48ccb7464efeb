//go:build lockstep_bugs

package propertytests

import (
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/model/sim"
)

// The control of the data-centre scopes (dc_test.go, docs/multi-dc.md): a
// global lock served at LOCAL_QUORUM reads and writes, which the stores
// refuse (cqlstore.ValidateScope) and the defect accept-any-levels lets
// through (model/sim's TestingKnobs); and a DC-local store taking answers
// coordinated in the other data centre. A claim acknowledged by dc1's quorum
// is not seen by a read of dc2's, so a process of each data centre holds
// the one global lock: mutual exclusion must catch it. It runs only in the
// lockstep_bugs build, in CI's model-negative stage.
func init() {
	spec := dcSpec{read: model.LocalQuorum, write: model.LocalQuorum}
	controls = append(controls,
		control{name: "GlobalLockAtLocalQuorum",
			fleet: fleet{name: "new/dc-global@local-quorum", kinds: []kind{dcQueue(spec), dcQueue(spec), dcQueue(spec)},
				dc: &spec, extraFault: partitionDCs},
			v:    variant{plant: []defect{acceptAnyLevels}, noLeaseCheck: true, noFencing: true},
			want: "mutual exclusion:", exhibit: true},
		// A DC-local store that takes an answer coordinated in the other
		// data centre (a misrouted session), which the stores refuse
		// (cqlstore.CheckCoordinator): the misrouted process's LOCAL_QUORUM
		// is the other data centre's, whose replicas need not have its own
		// data centre's cells yet, so it claims its data centre's lock
		// beside that data centre's holder. Mutual exclusion, per data
		// centre, must catch it.
		//
		// The search runs on misrouteFleet, biased towards the schedule
		// that exposes it: see there. On new/dc-local itself at its own
		// weights it did not reach one in 3 × 3,000 checks (nor with the
		// faulty weights): a misroute shows only where the data centres'
		// replicas differ, and the random write sets, which leave most
		// writes waiting for deliveries, keep both of a data centre's
		// processes from ever holding while they differ. The regression
		// seed dc-local-store-takes-misrouted-answer (13 actions built by
		// hand on new/dc-local) guards the same defect there. The model's
		// refusal itself is checked by model/sim's
		// TestMisroute_DCLocalStoreRefusesAnswersOfAnotherDataCentreUnlessPlanted.
		control{name: "AcceptRemoteCoordinator", fleet: misrouteFleet,
			v: variant{plant: []defect{acceptRemoteCoordinator}, noLeaseCheck: true, noFencing: true,
				weights: &misrouteWeights, onlyExtraFault: true, promptWrites: true},
			want: "mutual exclusion:", maxActions: maxMisrouteActions, shortSteps: misrouteSteps},
	)
}

// misrouteFleet is the search of the control AcceptRemoteCoordinator:
// new/dc-local's processes and properties, shaped so that a random schedule
// reaches a misroute that matters. Its two processes both live in dc1
// (coordinated by replicas 0 and 1), so every step moves one of the pair
// that share a row; its only faults are cutDCsThenMisroute (onlyExtraFault),
// which the random phase never undoes (the quiet phase heals the partition
// and routes every process home); and its writes are applied at once by
// every replica their coordinator reaches (promptWrites), so that dc1's
// replicas and dc2's differ exactly when the partition cuts them apart, and
// both processes make progress on their own sides of it.
var misrouteFleet = fleet{name: "new/dc-local/misrouted",
	kinds: []kind{dcQueue(dc1Quorum), dcQueue(dc1Quorum)},
	dc:    &dc1Quorum, extraFault: cutDCsThenMisroute}

// dc1Quorum is localQuorum with both processes in dc1.
var dc1Quorum = dcSpec{local: true, read: model.LocalQuorum, write: model.LocalQuorum, coordinators: []int{0, 1}}

// misrouteWeights are steps and ticks, with a fault now and then: the
// misroute control's faults only make things worse, and two of them are
// enough.
var misrouteWeights = [numActs]int{actStep: 12, actTick: 2, actFault: 1}

// maxMisrouteActions bounds the misroute control's shortest
// counterexample: a partition, a misroute, and both processes' Lock calls
// around them, the later one often past a failed fast path (a Poll of
// ticks and steps). Searches minimize to 14 to 53 actions.
const maxMisrouteActions = 50

// misrouteSteps is the misroute control's random phase in its later
// searches (control.shortSteps): ten actions seldom hold both faults and
// both Lock calls, and a search that misses costs its 3,000 checks.
const misrouteSteps = 40

// cutDCsThenMisroute partitions the two data centres if they are whole, and
// otherwise misroutes a process that is not misrouted yet to a replica of
// the other data centre; it heals and routes home nothing (the quiet phase
// does).
func cutDCsThenMisroute(h *harness, ch sim.Chooser) bool {
	if !h.s.Cluster().Partitioned() {
		return partitionDCs(h, ch)
	}
	pr := h.pick(ch)
	if pr == nil {
		return false
	}
	if _, ok := pr.sp.Misrouted(); ok {
		return false
	}
	h.misroute(pr, ch)
	return true
}
