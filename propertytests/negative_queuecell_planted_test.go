//go:build lockstep_bugs

package propertytests

// The control of property Q, a holder gives its queue cell up
// (docs/algorithms.md, section 4.13; queuecell_test.go), run by the plain
// negative-control command (go test -tags lockstep_bugs ./propertytests
// -run 'Negative|Regressions').
func init() {
	controls = append(controls,
		// A holder renews its queue cell for the whole hold, as before
		// section 4.13: after its first acknowledged renewal its queue
		// cell is still the winning, live version.
		control{name: "HolderKeepsQueueCell", fleet: fleetNamed("new"),
			v: variant{bugs: switches{HolderKeepsQueueCell: true}}, want: "queue cell:"},
		// The same where intention locks on ancestors are held, in accesses
		// others share, whose first renewal comes a Poll after the claim.
		control{name: "HolderKeepsQueueCell/manager", fleet: fleetNamed("new/manager"),
			v: variant{bugs: switches{HolderKeepsQueueCell: true}}, want: "queue cell:"},
	)
}
