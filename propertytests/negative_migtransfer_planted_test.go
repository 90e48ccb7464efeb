//go:build lockstep_bugs

package propertytests

// The control of the migration handover's planted defect (migration's
// TestingKnobs AdoptWithoutCensus), on the migration transfer fleet
// (migtransfer_test.go). As those of negative_planted_test.go, it runs
// only in the lockstep_bugs test build:
//
//	go test -tags lockstep_bugs ./propertytests/ -run 'Negative/AdoptWithoutCensus' -v
func init() {
	controls = append(controls,
		// The successor adopts with no admission: its flag (combined, once
		// the Controller began the way back) is not checked, its census
		// entry never shows the adopted lock, so once the giver leaves the
		// Controller's census read finds no process using new and commits
		// combined while the successor still works on the lock in mode
		// new. Caught by the phase property; exclusion would follow only
		// once a legacy process took the id, which this fleet has none of.
		// Its searches land on counterexamples from 3 to 17 actions
		// (minimized), so it keeps an exhibit (exhibit_test.go).
		control{name: "AdoptWithoutCensus", fleet: migTransferFleet,
			v: variant{plant: []defect{adoptWithoutCensus}, noLeaseCheck: true, noFencing: true}, want: "phase:",
			exhibit: true},
	)
}
