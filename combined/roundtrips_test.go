package combined

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

// slow is a store whose every request takes rtt (of synctest's time), so
// that requests sent side by side take one rtt together and the elapsed
// time counts sequential round trips.
type slow struct {
	lockstep.Store
	rtt time.Duration
}

func (s slow) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	time.Sleep(s.rtt)
	return s.Store.Put(ctx, table, row, cells...)
}

func (s slow) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	time.Sleep(s.rtt)
	return s.Store.Delete(ctx, table, row, ts, columns...)
}

func (s slow) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	time.Sleep(s.rtt)
	return s.Store.Read(ctx, table, row, sl)
}

// Uncontended, a combined Lock is four sequential round trips (docs/algorithms.md,
// section 6.1: the queue claim's write and read, each beside the legacy
// round's shadow write and read, then the main read and the main write),
// and Unlock one more (the queue and main deletes side by side, the shadow
// delete already in flight). The legacy round starts beside the queue
// claim, though the queue part only notes its claims and combined's own
// goroutine starts the round.
func TestCombined_UncontendedLockIsFourRoundTrips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		const rtt = 10 * time.Millisecond
		c, err := New(slow{Store: model.New(&clock.Local{}), rtt: rtt}, opts(tm, 1))
		require.NoError(t, err)
		defer c.Close(ctx)
		for i := range 3 { // the first also reads the floor, beside its claim
			start := time.Now()
			l, err := c.Lock(ctx, "id")
			require.NoError(t, err)
			require.Equal(t, 4*rtt, time.Since(start), "Lock %d", i+1)
			require.NoError(t, l.Unlock(ctx))
			require.Equal(t, 5*rtt, time.Since(start), "Lock+Unlock %d", i+1)
		}
	})
}
