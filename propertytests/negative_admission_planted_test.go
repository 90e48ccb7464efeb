//go:build lockstep_bugs

package propertytests

// The control of the admission bound on values drawn ahead (migration's
// TestingKnobs AheadBeforeAdmission), on the rollback fleet from its
// prefix (rollbackevidence_test.go, rollbackprefix_test.go), run by the
// plain negative-control command:
//
//	go test -tags lockstep_bugs ./propertytests/ -run 'Negative/AheadBeforeAdmission$' -v
func init() {
	controls = append(controls,
		// A lock of mode new takes a value drawn ahead before the phase
		// read that admitted it: p0's values, drawn in the new phase
		// before the rollback, are below the token p1's legacy lock drew
		// during it, and no evidence in the queue row records that token.
		// p0's next lock of mode new keeps one of them: property 4. The
		// prefix's rollback takes 500 ms of virtual time from p0's draw to
		// its next claim, within half the lease window (625 ms), so the age
		// limit on values drawn ahead lets them serve and the admission
		// rule alone stands between them, as in migration's unit test of
		// the schedule (ahead_test.go). Only AheadBeforeAdmission is
		// planted; the fleet passes with queuelock's AheadPastWindow alone
		// (TestController_Rollback_PrefixReachesTheSchedule).
		control{name: "AheadBeforeAdmission", fleet: rollbackFleet,
			v: admissionControl(), want: "fencing:"},
	)
}

// admissionControl is the control's variant, leaving the lease property
// to the fleet tests so the search shrinks towards property 4.
func admissionControl() variant {
	v := admissionVariant(false, true)
	v.noLeaseCheck = true
	return v
}
