package combined

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// legacyCut fails writes to the legacy main table while cut is set: the
// legacy half's renewals fail, the queue half's succeed.
type legacyCut struct {
	lockstep.Store
	cut atomic.Bool
}

func (c *legacyCut) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if table == shadowlock.DefaultMainTable && c.cut.Load() {
		return errors.New("test: legacy main table cut")
	}
	return c.Store.Put(ctx, table, row, cells...)
}

// legacyHalfLostCloses reports whether a combined lock whose legacy
// renewals all fail is signalled lost within its legacy lease window, while
// its queue lease is renewed fine: one loss signal carries both leases.
func legacyHalfLostCloses(t *testing.T, k *shadowlock.TestingKnobs) bool {
	closed := false
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := &legacyCut{Store: model.New(&clock.Local{})}
		o := opts(tm, 1)
		o.Legacy.TestingKnobs = k
		c, err := New(s, o)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		h, err := c.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		s.cut.Store(true)
		select {
		case <-h.Lost():
			closed = true
		case <-time.After(tm.TTL): // well past the window, (TTL − 1s − skew)/2
		}
		s.cut.Store(false)
		_ = h.Unlock(ctx)
	})
	return closed
}

func TestCombined_LostClosesWhenOnlyTheLegacyLeaseIsLost(t *testing.T) {
	if !legacyHalfLostCloses(t, nil) {
		t.Fatal("the legacy half's lease lapsed (its renewals failed for a TTL) but Lost() stayed open")
	}
}
