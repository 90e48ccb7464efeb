//go:build lockstep_bugs

package queue

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// With SkipIntentionRange planted, a claim in X reads as an intention claim
// does, up to the intention range: it misses the IX holder whose owner cell
// is there, and holds beside it: what
// TestIntentionRange_ConflictsAreSeenAcrossTheOption checks for every pair
// of accesses (there TryLock in X beside IX fails with ErrLocked).
func TestIntentionRange_SkipIntentionRangeIsCaught(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		h, a := newRanged(t, s, true, nil), newRanged(t, s, false, &TestingKnobs{SkipIntentionRange: true})
		ix, err := lockIn(ctx, h, "k", lockstep.IntentExclusive)
		require.NoError(t, err)
		time.Sleep(2 * time.Second) // the holder's queue cell gone: only its owner cell speaks
		synctest.Wait()
		x, err := a.acquireOne(ctx, "k", lockstep.Exclusive, true)
		require.NoError(t, err, "the planted defect should let X hold beside IX")
		require.False(t, isLost(ix) || isLost(x), "both hold")
		require.NoError(t, x.Unlock(ctx))
		require.NoError(t, ix.Unlock(ctx))
	})
}
