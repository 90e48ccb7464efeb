package combined

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// A foreign cell in the queue partition reaches the caller of a combined
// Lock or TryLock as queuelock reports it, and the legacy rows stay empty:
// the legacy half is never tried.
func TestCombined_ForeignQueueCellIsAnErrorTheCallerSees(t *testing.T) {
	for _, try := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s := model.New(&clock.Local{})
			foreign := lockstep.Cell{Column: "zz", Value: []byte("x"), Timestamp: 1, TTL: time.Hour}
			if err := s.Put(ctx, queuelock.DefaultTable, "id", foreign); err != nil {
				t.Fatal(err)
			}
			c, err := New(s, opts(locktest.Timing{TTL: 6 * time.Second, Renew: time.Second}, 1))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			acquire := c.Lock
			if try {
				acquire = c.TryLock
			}
			ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if h, err := acquire(ctx, "id"); !errors.Is(err, lockstep.ErrForeignCell) {
				if h != nil {
					_ = h.Unlock(ctx)
				}
				t.Fatalf("try %v: %v, want ErrForeignCell", try, err)
			}
			for _, table := range []string{shadowlock.DefaultMainTable, shadowlock.DefaultShadowTable} {
				if cs, _ := s.Read(ctx, table, "id", lockstep.Slice{}); len(cs) != 0 {
					t.Fatalf("try %v: %s holds %v", try, table, cs)
				}
			}
		})
	}
}
