package lockd_test

import (
	"context"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/model"
)

// A session that lapses loses its lock to the waiter: its watcher is told
// EXPIRED with the lost handle, and its next call Aborted with the same.
// Sessions' TTLs run on a manual clock, so the test moves time instead of
// sleeping.
func TestSession_LapseHandsTheLockToTheWaiter(t *testing.T) {
	clk := model.NewManualClock(0)
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Clock: clk}})
	a, b := f.client("grpc", "", nil), f.client("connect", "", nil)
	sa := open(t, a, 2*time.Second)
	sb := open(t, b, time.Minute)
	ctx := context.Background()
	la, err := a.Lock(ctx, lockReq(sa, item("invoice-7", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watch, err := a.WatchSession(wctx, connect.NewRequest(&pb.WatchSessionRequest{SessionId: sa}))
	require.NoError(t, err)
	defer watch.Close()
	require.True(t, watch.Receive(), "%v", watch.Err())
	require.Equal(t, pb.SessionEvent_KIND_WATCHING, watch.Msg().Kind)

	got := make(chan error, 1)
	go func() {
		_, err := b.Lock(ctx, lockReq(sb, item("invoice-7", pb.Access_ACCESS_EXCLUSIVE)))
		got <- err
	}()
	clk.BlockUntil(2) // both sessions' expiry loops are waiting
	clk.Advance(3 * time.Second)

	require.NoError(t, <-got, "the waiter gets the lock once the lapsed session's is released")
	require.True(t, watch.Receive(), "%v", watch.Err())
	require.Equal(t, pb.SessionEvent_KIND_EXPIRED, watch.Msg().Kind)
	require.Equal(t, []string{la.Msg.Lock.LockId}, watch.Msg().LockIds)
	require.False(t, watch.Receive(), "EXPIRED is the last event")

	_, err = a.KeepAlive(ctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: sa}))
	le := requireRefusal(t, err, connect.CodeAborted, pb.LockError_REASON_SESSION_EXPIRED)
	require.Equal(t, []string{la.Msg.Lock.LockId}, le.LostLockIds)
	require.Contains(t, f.logs.String(), "session expired")
}

// KeepAlive keeps a session past its TTL.
func TestSession_KeepAliveKeepsItPastItsTTL(t *testing.T) {
	clk := model.NewManualClock(0)
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Clock: clk}})
	c := f.client("connect", "", nil)
	s := open(t, c, 2*time.Second)
	ctx := context.Background()
	for range 3 {
		clk.BlockUntil(1)
		clk.Advance(1500 * time.Millisecond)
		_, err := c.KeepAlive(ctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: s}))
		require.NoError(t, err)
	}
	d, err := c.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: s}))
	require.NoError(t, err)
	require.Equal(t, s, d.Msg.SessionId)
}

// CloseSession releases the session's locks and tells its watchers CLOSED;
// the server's Close does the same for every session, and turns health to
// NOT_SERVING.
func TestSession_CloseReleasesAndTellsWatchers(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("connect", "", nil)
	sa, sb := open(t, c, 0), open(t, c, 0)
	ctx := context.Background()
	_, err := c.Lock(ctx, lockReq(sa, item("x", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	watch, err := c.WatchSession(ctx, connect.NewRequest(&pb.WatchSessionRequest{SessionId: sa}))
	require.NoError(t, err)
	defer watch.Close()
	require.True(t, watch.Receive())
	_, err = c.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: sa}))
	require.NoError(t, err)
	require.True(t, watch.Receive(), "%v", watch.Err())
	require.Equal(t, pb.SessionEvent_KIND_CLOSED, watch.Msg().Kind)
	_, err = c.TryLock(ctx, lockReq(sb, item("x", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err, "the closed session's lock was released")
	_, err = c.KeepAlive(ctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: sa}))
	requireRefusal(t, err, connect.CodeNotFound, pb.LockError_REASON_UNKNOWN_SESSION)

	watchB, err := c.WatchSession(ctx, connect.NewRequest(&pb.WatchSessionRequest{SessionId: sb}))
	require.NoError(t, err)
	defer watchB.Close()
	require.True(t, watchB.Receive())
	require.NoError(t, f.server.Close(ctx))
	require.True(t, watchB.Receive(), "%v", watchB.Err())
	require.Equal(t, pb.SessionEvent_KIND_CLOSED, watchB.Msg().Kind)
	require.Contains(t, watchB.Msg().Reason, "shutting down")
	_, err = c.OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
	requireRefusal(t, err, connect.CodeUnavailable, pb.LockError_REASON_SHUTTING_DOWN)
}

// A lock whose lease is lost is reported on the session's stream
// (LOCK_LOST, its handle), and its Unlock is Aborted (LOST) but releases it.
func TestSession_LostLeaseIsReportedOnTheStreamAndByUnlock(t *testing.T) {
	w := &losable{}
	f := newFixture(t, fixtureOptions{wrap: func(l lockstep.GroupLocker) lockstep.GroupLocker { w.GroupLocker = l; return w }})
	c := f.client("grpc", "", nil)
	s := open(t, c, 0)
	ctx := context.Background()
	held, err := c.Lock(ctx, lockReq(s, item("x", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	watch, err := c.WatchSession(ctx, connect.NewRequest(&pb.WatchSessionRequest{SessionId: s}))
	require.NoError(t, err)
	defer watch.Close()
	require.True(t, watch.Receive())

	w.loseAll()
	require.True(t, watch.Receive(), "%v", watch.Err())
	require.Equal(t, pb.SessionEvent_KIND_LOCK_LOST, watch.Msg().Kind)
	require.Equal(t, []string{held.Msg.Lock.LockId}, watch.Msg().LockIds)

	_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: s, LockId: held.Msg.Lock.LockId}))
	requireRefusal(t, err, connect.CodeAborted, pb.LockError_REASON_LOST)
	d, err := c.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: s}))
	require.NoError(t, err)
	require.Empty(t, d.Msg.Locks, "the lost lock was released all the same")
	require.Contains(t, f.logs.String(), "lock lost")
}

// stuckClock is a manual clock whose sleeps end only with their context:
// a session's expiry loop never runs, as when lockd's process was paused
// and a call arrives before the loop wakes.
type stuckClock struct{ *model.ManualClock }

func (stuckClock) Sleep(ctx context.Context, _ time.Duration) error {
	<-ctx.Done()
	return ctx.Err()
}

// A call that arrives after the session's deadline, before its expiry loop
// has ended it, does not revive it: the client, counting from its send,
// already takes it as lapsed. The call ends the session itself, releasing
// the lock, and is answered SESSION_EXPIRED.
func TestSession_ALateCallDoesNotReviveALapsedSession(t *testing.T) {
	clk := stuckClock{model.NewManualClock(0)}
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Clock: clk}})
	c := f.client("connect", "", nil)
	ctx := context.Background()
	sa := open(t, c, 2*time.Second)
	la, err := c.Lock(ctx, lockReq(sa, item("late", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	clk.Advance(3 * time.Second) // past sa's TTL; its expiry loop sleeps on
	sc := open(t, c, time.Minute)
	_, err = c.KeepAlive(ctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: sa}))
	le := requireRefusal(t, err, connect.CodeAborted, pb.LockError_REASON_SESSION_EXPIRED)
	require.Equal(t, []string{la.Msg.Lock.LockId}, le.LostLockIds)
	_, err = c.TryLock(ctx, lockReq(sc, item("late", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err, "the lapsed session's lock was released")
}
