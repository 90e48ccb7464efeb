package managertest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// transfer is seed 003's setToken as a handover: a worker takes
// a job's lock, does part of the work and hands the lock to a successor
// (Share, Adopt, then the worker's Unlock), which finishes the work while
// a third process, and another goroutine of the worker's process, keep
// waiting for the lock: neither acquires before the successor releases
// (with local handoff, the goroutine waits in the worker's line, and the
// worker's Unlock must not hand it the shared lock). Lockers that do not share identities
// (not a lockstep.Sharer: the combined and legacy Lockers) skip it; for
// one whose locks cannot be shared in its mode (Env.Unshareable: a
// migration.Locker outside mode new) it checks the refusal instead.
func transfer(t *testing.T, env Env) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	worker, successor, third := newLocker(t, env, s, "/"), newLocker(t, env, s, "/"), newLocker(t, env, s, "/")
	give, ok := worker.(lockstep.Sharer)
	if !ok {
		t.Skipf("%T does not share identities (it is no lockstep.Sharer)", worker)
	}
	take := successor.(lockstep.Sharer)

	l, err := worker.LockGroup(ctx, lockstep.Request{ID: "jobs/7"}, lockstep.Request{ID: "ledger", Access: lockstep.Shared})
	require.NoError(t, err)
	if env.Unshareable {
		_, err := give.Share(l)
		require.ErrorIs(t, err, lockstep.ErrIncompatibleMode, "Share of a lock whose mode cannot be shared")
		_, err = third.TryLock(ctx, "jobs/7")
		require.ErrorIs(t, err, lockstep.ErrLocked, "the refused lock is still held")
		require.NoError(t, l.Unlock(ctx))
		return
	}
	work := 1 // the worker's part

	var released, thirdHeld atomic.Bool
	thirdDone := make(chan error, 1)
	go func() {
		l3, err := third.Lock(ctx, "jobs/7")
		if err == nil {
			thirdHeld.Store(true)
			if !released.Load() {
				err = errThirdEarly
			}
			_ = l3.Unlock(context.WithoutCancel(ctx))
		}
		thirdDone <- err
	}()

	tok, err := give.Share(l)
	require.NoError(t, err)
	l2, err := take.Adopt(ctx, tok)
	require.NoError(t, err)
	require.Equal(t, l.ID(), l2.ID())
	require.Equal(t, l.Owner(), l2.Owner())
	var localHeld atomic.Bool
	localDone := make(chan error, 1)
	go func() {
		l4, err := worker.Lock(ctx, "jobs/7")
		if err == nil {
			localHeld.Store(true)
			if !released.Load() {
				err = errLocalEarly
			}
			_ = l4.Unlock(context.WithoutCancel(ctx))
		}
		localDone <- err
	}()
	time.Sleep(100 * time.Millisecond) // the worker's goroutine waits behind the worker
	require.NoError(t, l.Unlock(ctx), "the worker leaves")

	for range 3 { // the successor's part, longer than a lease window
		select {
		case <-l2.Lost():
			t.Fatal("the successor's lock was lost while it worked")
		default:
		}
		require.False(t, thirdHeld.Load(), "the third process acquired while the successor held the lock")
		require.False(t, localHeld.Load(), "another goroutine of the worker acquired while the successor held the lock")
		work++
		time.Sleep(time.Second)
	}
	require.Equal(t, 4, work)
	released.Store(true)
	require.NoError(t, l2.Unlock(ctx), "the successor, the last holder, releases")
	require.NoError(t, <-thirdDone, "the third process, after the release")
	require.NoError(t, <-localDone, "the worker's other goroutine, after the release")
}

var (
	errThirdEarly = errors.New("the third process acquired before the successor released")
	errLocalEarly = errors.New("another goroutine of the worker acquired before the successor released")
)
