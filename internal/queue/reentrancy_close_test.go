package queue

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// Close releases every lock the Locker holds, the members of reentrant
// groups included, and makes further calls fail with ErrClosed. A holder's
// reentrant Lock of an id its earlier Lock held must then fail too: counting
// the registry entry would hand out a lock whose cells are gone, which
// another process may already hold.
func TestReentrancy_LockAfterCloseFailsAndIsNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		a, b := newLocker(t, s, nil), newLocker(t, s, nil)
		job := a.Unit("job")
		first, err := job.Lock(ctx, "x")
		require.NoError(t, err)
		require.NoError(t, a.Close(ctx))

		other, err := b.TryLock(ctx, "x")
		require.NoError(t, err, "Close released x")
		defer func() { _ = other.Unlock(ctx) }()

		again, err := job.Lock(ctx, "x")
		if err == nil {
			_ = again.Unlock(ctx)
		}
		require.ErrorIs(t, err, lockstep.ErrClosed, "a reentrant Lock after Close, while another process holds x")
		_ = first.Unlock(ctx)
	})
}
