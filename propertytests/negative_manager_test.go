package propertytests

import "github.com/lockstep-go/lockstep/internal/bugs"

// The negative control of the queue lock's accesses whose defect is a
// per-acquisition switch (bugs.Set): like the controls of negative_test.go
// it is listed in every build and skipped, visibly, in one without
// -tags lockstep_bugs. The controls of the lock manager's defects, which
// are process-wide (bugs.Defect), are in negative_manager_planted_test.go.
func init() {
	controls = append(controls,
		// A non-exclusive request that ignores the line (queuelock's
		// "Lock accesses": compatible with every earlier live queue request)
		// and claims as soon as the owner cells allow: readers that keep
		// overlapping pass an earlier waiting writer again and again.
		// Caught in the quiet phase by bounded bypass (G3: overtaken at its
		// first member by later incompatible requests beyond bypassBound);
		// exclusion still holds, since the owner cells are still read.
		control{name: "ReaderBypass", fleet: fleetNamed("new/manager"),
			v: variant{bugs: bugs.Set{ReaderBypass: true}, noLeaseCheck: true, noFencing: true}, want: "liveness: bypass:"},
	)
}
