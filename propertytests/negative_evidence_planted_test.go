//go:build lockstep_bugs

package propertytests

// The controls of evidence-ordered fencing (queuelock.Options.Evidence;
// evidence_test.go), run by the plain negative-control command
// (go test -tags lockstep_bugs ./propertytests -run 'Negative|Regressions').
// Both start the random phase from the race (variant.fromRace): the second
// process's claim in flight, its draw beside it served before the first
// process's draw, and the first process holding with the larger token.
// Once the holder releases and the claim's read follows, a claim that keeps
// its early token holds a token below the earlier holder's: property 4.
func init() {
	controls = append(controls,
		// The claim keeps the token drawn beside it whatever the evidence
		// its read returned.
		control{name: "KeepBelowEvidence", fleet: evidenceFleet,
			v: evidenceControl(switches{KeepBelowEvidence: true}), want: "fencing:"},
		// The releases record no evidence: the claim's read finds only the
		// evidence of its own process's earlier release, below its token.
		control{name: "RecordNoEvidence", fleet: evidenceFleet,
			v: evidenceControl(switches{RecordNoEvidence: true}), want: "fencing:"},
	)
}

// evidenceControl is evidenceVariant with bugs planted, leaving the lease
// property to the fleet tests so the search shrinks towards property 4.
func evidenceControl(bugs switches) variant {
	v := evidenceVariant
	v.bugs, v.noLeaseCheck = bugs, true
	return v
}
