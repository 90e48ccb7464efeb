package combined

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// failFirstShadowDelete fails the first delete sent to the legacy shadow
// table: the one a combined acquisition leaves in flight when it returns.
type failFirstShadowDelete struct {
	lockstep.Store
	failed atomic.Bool
}

var errShadowDelete = errors.New("injected: shadow delete failed")

func (f *failFirstShadowDelete) Delete(ctx context.Context, table, row string, ts int64, cols ...string) error {
	if table == shadowlock.DefaultShadowTable && f.failed.CompareAndSwap(false, true) {
		return errShadowDelete
	}
	return f.Store.Delete(ctx, table, row, ts, cols...)
}

// The shadow delete a combined acquisition leaves in flight failed while the
// lock was held. The first Unlock sends it again at once and, as it
// succeeds, reports nothing; it does not report the stale failure and leave
// the shadow cell live until a second Unlock or its TTL.
func TestCombined_FirstUnlockRetriesAFailedInFlightShadowDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		base := model.New(&clock.Local{})
		store := &failFirstShadowDelete{Store: base}
		c, err := New(store, nil)
		require.NoError(t, err)
		defer c.Close(ctx)
		h, err := c.Lock(ctx, "id")
		require.NoError(t, err)
		synctest.Wait() // the in-flight shadow delete has failed
		require.True(t, store.failed.Load(), "the test needs the in-flight delete to have failed")
		require.NoError(t, h.Unlock(ctx), "the retry succeeded: nothing is still wrong")
		cells, err := base.Read(ctx, shadowlock.DefaultShadowTable, "id", lockstep.Slice{})
		require.NoError(t, err)
		require.Empty(t, cells, "the shadow cell is gone after the first Unlock")
	})
}
