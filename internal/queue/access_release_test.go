package queue

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// Two readers of one Locker hold an id in slots 0 and 1. The first one's
// Unlock fails and passes its turn; its retry, while the other reader still
// holds slot 1, must still delete its own owner cell (slot 0's column,
// which no acquisition holds): otherwise, once both are released, the
// stale reader cell keeps a writer of another process out for up to a TTL
// though nobody holds the id. (Before accesses the other holder shared the
// column and its release deleted it.)
func TestAccess_RetriedUnlockDeletesItsSlotColumnWhileAnotherSlotHolds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hw, live, err := writerAfterRetriedReaderUnlock(t, nil)
		require.NoError(t, err, "nobody holds id; live cells: %v", live)
		require.NoError(t, hw.Unlock(context.Background()))
	})
}

// writerAfterRetriedReaderUnlock runs that story and returns the writer's
// TryLock, and the id's live cells.
func writerAfterRetriedReaderUnlock(t *testing.T, k *TestingKnobs) (lockstep.Lock, []string, error) {
	t.Helper()
	ctx := context.Background()
	base := model.New(&clock.Local{})
	var dels atomic.Int64
	f := &failing{Store: base,
		failPut:    func([]lockstep.Cell) bool { return false },
		failDelete: func([]string) bool { return dels.Add(1) == 1 }, // h1's first Unlock
	}
	l, w := newPlanted(t, f, nil, k), newPlanted(t, base, nil, k)
	h1, err := lockIn(ctx, l, "id", lockstep.Shared)
	require.NoError(t, err)
	h2, err := lockIn(ctx, l, "id", lockstep.Shared)
	require.NoError(t, err)
	f.on.Store(true)
	require.Error(t, h1.Unlock(ctx), "the test needs h1's first Unlock to fail")
	require.NoError(t, h1.Unlock(ctx), "h1's retry")
	require.NoError(t, h2.Unlock(ctx))

	hw, err := w.TryLock(ctx, "id")
	return hw, cells(t, base, "id"), err
}
