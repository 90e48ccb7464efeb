package propertytests

// The negative controls of the queue lock's accesses whose defect is one of
// the queue lock's switches: like the controls of negative_test.go they are
// listed in every build and skipped, visibly, in one without -tags
// lockstep_bugs. The controls of the lock manager's defects (defect) are in
// negative_manager_planted_test.go.
func init() {
	controls = append(controls,
		// A non-exclusive request that ignores the line (docs/algorithms.md,
		// section 4.2: compatible with every earlier live queue request)
		// and claims as soon as the owner cells allow: readers that keep
		// overlapping pass an earlier waiting writer again and again.
		// Caught in the quiet phase by bounded bypass (G3: a wait overtaken
		// at its first member by later incompatible requests beyond
		// bypassBound); exclusion still holds, since the owner cells are
		// still read. The other liveness checks catch it too, and would
		// report most runs first, so they are left out here (onlyBypass):
		// the per-plan wait bound (G2), when the starved wait began before
		// the quiet phase (G3 bounds only waits begun in it), and the
		// deadlock check, for the shortest counterexamples — a reader of
		// "a" in a loop beside writers, whose claims and the reader's keep
		// failing each other: no acquisition for 12 s (measured: 4 searches
		// of 4 at 1,000 checks shrank to that, with only G2 left out).
		control{name: "ReaderBypass", fleet: fleetNamed("new/manager"),
			v: variant{bugs: switches{ReaderBypass: true}, noLeaseCheck: true, noFencing: true, onlyBypass: true}, want: "liveness: bypass:", exhibit: true},
		// Every claim reads as an intention claim does with
		// Options.IntentionRange, up to the range (docs/algorithms.md,
		// section 4.14): a claim in S, SIX or X of the third process misses
		// the IS and IX holders of p0's Locker, whose owner cells are in the
		// range, and holds beside them. Caught by access exclusion (G1).
		control{name: "SkipIntentionRange", fleet: fleetNamed("new/manager-two-goroutines"),
			v: variant{bugs: switches{SkipIntentionRange: true}, noLeaseCheck: true, noFencing: true}, want: "mutual exclusion:"},
	)
}
