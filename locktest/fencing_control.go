package locktest

import (
	"testing"
	"testing/synctest"
)

// ExpectUncheckedTokenCaught is the negative control of the delayed-draw
// scenarios: run with env building its Lockers with the UncheckedToken knob
// (internal/fencing.TestingKnobs) switched on,
// it fails unless A returns a lock while B holds it, with a token below B's —
// the defect the scenarios exist to catch.
func ExpectUncheckedTokenCaught(t *testing.T, env FencingEnv) {
	for _, try := range []bool{false, true} {
		name := "Lock"
		if try {
			name = "TryLock"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				out := delayedDraw(t, env, try)
				if !out.Early || out.EarlyToken >= out.Successor {
					t.Fatalf("planted: %+v; want A to return a lock with a token below B's %d: the scenario would not see the defect", out, out.Successor)
				}
				t.Logf("planted: A returned token %d while B held the lock with token %d", out.EarlyToken, out.Successor)
			})
		})
	}
}
