//go:build lockstep_bugs

package propertytests

// The controls of evidence-ordered fencing (queuelock.Options.Evidence;
// evidence_test.go), run by the plain negative-control command
// (go test -tags lockstep_bugs ./propertytests -run 'Negative|Regressions').
// All start the random phase from the race (variant.fromRace): the second
// process's claim in flight, its early token drawn (beside the claim, or
// ahead by its first draw) before the first process's draw, and the first
// process holding with the larger token.
// Once the holder releases and the claim's read follows, a claim that keeps
// its early token holds a token below the earlier holder's: property 4.
func init() {
	controls = append(controls,
		// The claim keeps the token drawn beside it whatever the evidence
		// its read returned.
		control{name: "KeepBelowEvidence", fleet: evidenceFleet,
			v: evidenceControl(evidenceVariant, switches{KeepBelowEvidence: true}), want: "fencing:"},
		// The releases record no evidence: the claim's read finds only the
		// evidence of its own process's earlier release, below its token.
		control{name: "RecordNoEvidence", fleet: evidenceFleet,
			v: evidenceControl(evidenceVariant, switches{RecordNoEvidence: true}), want: "fencing:"},
		// Across modes (migevidence_test.go): the combined holder's queue
		// half records no evidence of the combined token, so the late claim
		// of mode new keeps its early token, below the combined holder's.
		control{name: "CombinedRecordsNoEvidence", fleet: migEvidenceFleet,
			v: evidenceControl(migEvidenceVariant, switches{RecordNoEvidence: true}), want: "fencing:"},
		// A claim keeps a value drawn ahead however long ago it was drawn:
		// the late claimer's values, drawn before the holder's token, are
		// below it, and its read meets no trace of that token once the
		// holder's cells and evidence have expired, which a process that
		// dies holding the lock, or a claim, makes the line wait for. The
		// searches have caught it every time, but the failure comes in the
		// quiet phase, and fewer than half of their counterexamples shrink
		// to the bound: an exhibit (p2 crashes, its claim pending) gives
		// the verdict.
		control{name: "AheadPastWindow", fleet: evidenceFleet,
			v: evidenceControl(evidenceVariant, switches{AheadPastWindow: true}), want: "fencing:", exhibit: true},
	)
}

// evidenceControl is v with bugs planted, leaving the lease property to the
// fleet tests so the search shrinks towards property 4.
func evidenceControl(v variant, bugs switches) variant {
	v.bugs, v.noLeaseCheck = bugs, true
	return v
}
