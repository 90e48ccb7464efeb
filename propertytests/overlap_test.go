package propertytests

import (
	"testing"

	"pgregory.net/rapid"
)

// interleavingWeights favour the processes' steps over time passing and
// faults even more than actWeights: a defect in the order of one process's
// overlapped requests (the negative control CombinedOverlapUnsafe) needs
// another process's three requests granted while its read stays pending.
var interleavingWeights = [numActs]int{actStep: 24, actTick: 2, actNet: 2, actTimeout: 0, actFault: 0}

// legacyHeavyMix is a mixed fleet with more legacy rounds for a combined
// process's overlapped round to race: the negative control
// CombinedOverlapUnsafe's fleet.
var legacyHeavyMix = fleet{name: "legacy+legacy+combined", kinds: []kind{legacy, legacy, combined}}

// The mixed fleets keep mutual exclusion under the weights the negative
// control CombinedOverlapUnsafe uses, so that control's failure is the
// defect's, not the weights' or the fleet's.
func TestMixedFleets_InterleavingWeights(t *testing.T) {
	for _, f := range []fleet{fleetNamed("legacy+combined"), legacyHeavyMix} {
		t.Run(f.name, func(t *testing.T) {
			defer rapidChecks(t, quickFleetChecks, deepChecks)()
			var st stats
			var last script
			rapid.Check(t, fleetProperty(t, f, variant{weights: &interleavingWeights}, &st, &last))
			t.Logf("%d runs, %d acquisitions", st.runs, st.acquisitions)
		})
	}
}
