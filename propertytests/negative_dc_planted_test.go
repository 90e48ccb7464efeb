//go:build lockstep_bugs

package propertytests

import "github.com/lockstep-go/lockstep/model"

// The control of the data-centre scopes (dc_test.go, docs/multi-dc.md): a
// global lock served at LOCAL_QUORUM reads and writes, which the stores
// refuse (cqlstore.ValidateScope) and the defect accept-any-levels lets
// through (model/sim's TestingKnobs). A claim acknowledged by dc1's quorum
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
			want: "mutual exclusion:"},
	)
}
