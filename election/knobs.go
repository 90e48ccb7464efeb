package election

// testingKnobs are the package's deliberate defects, for the negative
// control of its model check (property_bugs_test.go): each is honoured only
// in a build with the lockstep_bugs tag (knobsCompiled), and only this
// package's tests can set them (Options.knobs is unexported), so no user
// build contains them in effect.
type testingKnobs struct {
	// leaseUnchecked makes Leadership.Done ignore the lock's lease: it
	// closes only on Resign, so a leader whose lease lapsed (paused, cut
	// off) goes on leading beside its successor.
	leaseUnchecked bool
}
