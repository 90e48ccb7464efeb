package election

// TestingKnobs switch on this package's planted defects, for the negative
// control of its model check (property_bugs_test.go). Production code
// leaves Options.TestingKnobs nil.
type TestingKnobs struct {
	// LeaseUnchecked makes Leadership.Done ignore the lock's lease: it
	// closes only on Resign, so a leader whose lease lapsed (paused, cut
	// off) goes on leading beside its successor.
	LeaseUnchecked bool
}
