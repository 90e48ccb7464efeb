//go:build lockstep_bugs

package queue

import (
	"testing"
	"testing/synctest"
)

// With AdoptIntoTurnColumn planted, the adoption writes the column the
// waiter claims in, and the adopted lock's retried Unlock deletes the
// waiter's owner cell while it holds: a third process could claim beside
// it. The shipped adoption writes a column of its own
// (TestQueueLock_RetriedUnlockOfAnAdoptedLockLeavesTheWaitersCell).
func TestQueueLock_AdoptIntoTurnColumnIsCaught(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if retriedUnlockOfAdoptedBesideWaiter(t, &TestingKnobs{AdoptIntoTurnColumn: true}) {
			t.Fatal("AdoptIntoTurnColumn planted, yet the waiter's owner cell outlived the adopted lock's retried Unlock")
		}
	})
}
