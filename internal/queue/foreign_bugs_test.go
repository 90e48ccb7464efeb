//go:build lockstep_bugs

package queue

import (
	"testing"
)

// The negative control of TestQueueLock_ForeignCellIsAnErrorTheCallerSees:
// with SkipForeignCells planted (the behaviour before foreign cells became
// errors) every scenario fails its check — the acquisition goes through
// beside the foreign cell, including beside an owner cell naming no owner.
func TestQueueLock_SkippedForeignCellIsCaught(t *testing.T) {
	errs := foreignScenarios(t, &TestingKnobs{SkipForeignCells: true})
	if want := 4 * len(foreignCells); len(errs) != want {
		t.Fatalf("planted: %d of %d scenarios caught, want all: %v", len(errs), want, errs)
	}
	for _, err := range errs {
		t.Log(err)
	}
}
