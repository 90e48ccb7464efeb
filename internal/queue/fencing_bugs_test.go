//go:build lockstep_bugs

package queue

import (
	"testing"

	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/locktest"
)

// With UncheckedToken planted (the draw unchecked against the lease) a holder whose
// draw outlived its lease returns a lock, beside its successor, with a
// token below the successor's: TestQueueLock_Fencing fails.
func TestQueueLock_UncheckedTokenIsCaught(t *testing.T) {
	locktest.ExpectUncheckedTokenCaught(t, fencingEnvWith(&TestingKnobs{Fencing: &fencing.TestingKnobs{UncheckedToken: true}}))
}
