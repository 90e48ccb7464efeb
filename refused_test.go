package lockstep_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// refusing is a store whose role may read but not write, as a Cassandra
// role without MODIFY: every Put and Delete is refused with an error
// wrapping lockstep.ErrRefused, as package cassandra's would be.
type refusing struct {
	lockstep.Store
	writes atomic.Int64
}

var errNoModify = errors.New("user app has no MODIFY permission on <table locks.queue_lock> or any of its parents")

func (r *refusing) Put(_ context.Context, table, _ string, _ ...lockstep.Cell) error {
	r.writes.Add(1)
	return fmt.Errorf("refusing: put %s: %w: %w", table, lockstep.ErrRefused, errNoModify)
}

func (r *refusing) Delete(_ context.Context, table, _ string, _ int64, _ ...string) error {
	r.writes.Add(1)
	return fmt.Errorf("refusing: delete %s: %w: %w", table, lockstep.ErrRefused, errNoModify)
}

// A permanent refusal fails Lock at once, in every mode, with the store's
// error (which names the missing permission), instead of retrying until
// the caller's deadline: a role without MODIFY, or a table dropped after
// start, is a configuration to fix, not a store to wait for.
func TestLock_PermanentRefusalFailsAtOnce(t *testing.T) {
	lockers := map[string]func(lockstep.Store) (lockstep.Locker, error){
		"new":      func(s lockstep.Store) (lockstep.Locker, error) { return queuelock.New(s, nil) },
		"legacy":   func(s lockstep.Store) (lockstep.Locker, error) { return shadowlock.New(s, nil) },
		"combined": func(s lockstep.Store) (lockstep.Locker, error) { return combined.New(s, nil) },
		"migration": func(s lockstep.Store) (lockstep.Locker, error) {
			return migration.New(s, migration.Static(lockstep.ModeLegacy), nil) // the phase row is empty: legacy
		},
	}
	for name, newLocker := range lockers {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := &refusing{Store: model.New(&clock.Local{})}
				l, err := newLocker(store)
				require.NoError(t, err)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				defer cancel()
				start := time.Now()
				lk, err := l.Lock(ctx, "invoice/42")
				require.Nil(t, lk)
				require.ErrorIs(t, err, lockstep.ErrRefused)
				require.ErrorContains(t, err, "no MODIFY permission")
				require.NotErrorIs(t, err, context.DeadlineExceeded)
				require.Less(t, time.Since(start), time.Second, "failed at once, not after retries")
				require.LessOrEqual(t, store.writes.Load(), int64(4), "one attempt: its write, and the cleanup's deletes")
				if c, ok := l.(interface{ Close(context.Context) error }); ok {
					_ = c.Close(context.Background())
				}
			})
		})
	}
}
