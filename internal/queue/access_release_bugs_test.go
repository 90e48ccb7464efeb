//go:build lockstep_bugs

package queue

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// With RetryNeedsFreeID planted (the first design), the reader's retried
// Unlock leaves its owner cell while the other reader holds, and the writer
// is refused after both released: the check of
// TestAccess_RetriedUnlockDeletesItsSlotColumnWhileAnotherSlotHolds fails.
func TestAccess_RetryNeedsFreeIDIsCaught(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, live, err := writerAfterRetriedReaderUnlock(t, &TestingKnobs{RetryNeedsFreeID: true})
		require.ErrorIs(t, err, lockstep.ErrLocked, "live cells: %v", live)
		require.Len(t, live, 1, "the stale reader owner cell")
	})
}
