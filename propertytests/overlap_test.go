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

// The legacy+combined fleet keeps mutual exclusion under the weights its
// negative control CombinedOverlapUnsafe uses, so that control's failure is
// the defect's, not the weights'.
func TestLegacyCombinedFleet_InterleavingWeights(t *testing.T) {
	var st stats
	var last script
	rapid.Check(t, fleetProperty(t, fleetNamed("legacy+combined"), variant{weights: &interleavingWeights}, &st, &last))
	t.Logf("%d runs, %d acquisitions", st.runs, st.acquisitions)
}
