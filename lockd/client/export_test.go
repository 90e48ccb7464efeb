package client

import "context"

// TestingKnobs are the session's planted defects (testingKnobs), for this
// package's tests only.
type TestingKnobs = testingKnobs

// OpenWithKnobs is Open with the planted defects k (nil: none).
func OpenWithKnobs(ctx context.Context, url string, o *Options, k *TestingKnobs) (*Session, error) {
	var knobs testingKnobs
	if k != nil {
		knobs = *k
	}
	return open(ctx, url, o, knobs)
}
