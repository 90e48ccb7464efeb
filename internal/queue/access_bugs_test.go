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

// With ReaderBypass planted, the reader that arrives after a waiting writer
// holds at once, beside the first reader: the check that
// TestAccess_ReadersShareAndAWaitingWriterIsNotBypassed makes fails.
func TestAccess_ReaderBypassIsCaught(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		r1, w, r2 := newLocker(t, s, nil), newLocker(t, s, nil), newPlanted(t, s, nil, &TestingKnobs{ReaderBypass: true})
		l1, err := lockIn(ctx, r1, "k", lockstep.Shared)
		require.NoError(t, err)
		wch := pending(t, w, "k", lockstep.Exclusive)
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		l2, err := lockIn(ctx, r2, "k", lockstep.Shared)
		require.NoError(t, err, "the planted reader passes the waiting writer")
		require.False(t, holds(wch))
		require.NoError(t, l1.Unlock(ctx))
		require.NoError(t, l2.Unlock(ctx))
		wl := <-wch
		require.NoError(t, wl.Unlock(ctx))
	})
}
