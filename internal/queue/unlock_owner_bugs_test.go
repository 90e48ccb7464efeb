//go:build lockstep_bugs

package queue

import (
	"testing"
	"testing/synctest"
)

// With StaleOwnerColumn planted (the defect review found), the handle
// inherits the owner column among its attempt's stale cells, and h1's
// retried Unlock deletes h2's owner cell: the check of
// TestQueueLock_RetriedUnlockLeavesANewerHoldersOwnerCell fails. This is the
// defect's deterministic control; the model checks' regression seed for it
// (propertytests, retried-unlock-deletes-newer-owner-cell) replays on the
// shipped code only.
func TestQueueLock_StaleOwnerColumnIsCaught(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if ok, cells, col := retriedUnlockBesideNewerHolder(t, &TestingKnobs{StaleOwnerColumn: true}); ok {
			t.Fatalf("StaleOwnerColumn planted, yet h2's owner cell %s survived h1's retried Unlock: %v", col, cells)
		}
	})
}
