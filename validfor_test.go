package lockstep_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// Every lock the module's Lockers hand out says how long it stays valid
// (lockstep.Expiring): more than nothing while held, never more than the
// lease window, and 0 from its Unlock on — a one-id lock, a group, a
// hierarchical lock, and a migration lock in each mode (bounded by the
// census heartbeat too).
func TestValidFor_EveryLockSaysHowLongItStaysValid(t *testing.T) {
	ctx := context.Background()
	const window = 14 * time.Second // (TTL 30s − 1s − MaxServerSkew 1s)/2
	store := model.New(&clock.Local{})
	q, err := queuelock.New(store, &queuelock.Options{ProcessID: "q", Separator: "/"})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close(ctx)
	check := func(name string, take func() (lockstep.Lock, error)) {
		t.Helper()
		l, err := take()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		e, ok := l.(lockstep.Expiring)
		if !ok {
			t.Fatalf("%s: %T is not lockstep.Expiring", name, l)
		}
		if v := e.ValidFor(); v <= 0 || v > window {
			t.Errorf("%s: ValidFor() = %v while held, want in (0, %v]", name, v, window)
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatalf("%s: Unlock: %v", name, err)
		}
		if v := e.ValidFor(); v != 0 {
			t.Errorf("%s: ValidFor() = %v after Unlock, want 0", name, v)
		}
	}
	check("queuelock Lock", func() (lockstep.Lock, error) { return q.Lock(ctx, "a") })
	check("queuelock hierarchical Lock", func() (lockstep.Lock, error) { return q.Lock(ctx, "a/b") })
	check("queuelock LockGroup", func() (lockstep.Lock, error) {
		return q.LockGroup(ctx, lockstep.Request{ID: "x"}, lockstep.Request{ID: "y", Access: lockstep.Shared})
	})
	check("queuelock under reentrancy", func() (lockstep.Lock, error) {
		return q.Unit("").Lock(ctx, "r")
	})

	for _, mode := range []lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeCombined, lockstep.ModeNew} {
		if mode == lockstep.ModeNew {
			c, err := migration.NewController(store, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Set(ctx, lockstep.ModeCombined); err != nil {
				t.Fatal(err)
			}
			if err := c.Set(ctx, lockstep.ModeNew); err != nil {
				t.Fatal(err)
			}
		}
		m, err := migration.New(store, migration.Static(mode), &migration.Options{ProcessID: "m-" + mode.String(),
			CensusTTL: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		// The census window, (10s − 1s − 1s)/2 = 4s, is shorter than the
		// locks' lease window: it bounds ValidFor.
		l, err := m.Lock(ctx, "mig-"+mode.String())
		if err != nil {
			t.Fatalf("migration %v: %v", mode, err)
		}
		if v := l.(lockstep.Expiring).ValidFor(); v <= 0 || v > 4*time.Second {
			t.Errorf("migration %v: ValidFor() = %v, want in (0, 4s]: the census heartbeat bounds it", mode, v)
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		_ = m.Close(ctx)
	}
}
