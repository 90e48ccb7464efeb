package combined

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// A combined lock cannot be handed over: the combined Locker is no
// lockstep.Sharer (its legacy half has one renewer per owner), and a queue
// Locker asked to Share a combined lock refuses with ErrIncompatibleMode,
// changing nothing.
func TestCombined_LocksAreNotShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		c, err := New(s, opts(tm, 1))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		if _, ok := any(c).(lockstep.Sharer); ok {
			t.Fatal("the combined Locker is a lockstep.Sharer")
		}
		q, err := queuelock.New(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close(ctx)
		l, err := c.Lock(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := q.Share(l); !errors.Is(err, lockstep.ErrIncompatibleMode) {
			t.Fatalf("Share of a combined lock = %v, want ErrIncompatibleMode", err)
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatalf("the combined lock after the refused Share: %v", err)
		}
	})
}
