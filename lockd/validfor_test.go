package lockd_test

import (
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// lockd says how long each lock stays valid (lockstep.Expiring): in the
// answer that grants it, and in every KeepAlive answer while it is held,
// never more than the lease window of the Locker's TTL (30s by default:
// 14s), and a released lock no longer appears.
func TestKeepAlive_SaysHowLongEachLockStaysValid(t *testing.T) {
	const window = 14 * time.Second
	f := newFixture(t, fixtureOptions{})
	c := f.client("connect", "", nil)
	ctx := t.Context()
	s := open(t, c, 10*time.Second)
	a, err := c.Lock(ctx, lockReq(s, item("vf/a", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	b, err := c.Lock(ctx, lockReq(s, item("vf/b", pb.Access_ACCESS_SHARED), item("vf/c", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	for _, h := range []*pb.HeldLock{a.Msg.GetLock(), b.Msg.GetLock()} {
		v := h.GetValidFor().AsDuration()
		require.Greater(t, v, time.Duration(0), "lock %s granted with no time", h.GetLockId())
		require.LessOrEqual(t, v, window)
	}
	res, err := c.KeepAlive(ctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: s}))
	require.NoError(t, err)
	require.Len(t, res.Msg.GetValidFor(), 2)
	for _, h := range []string{a.Msg.GetLock().GetLockId(), b.Msg.GetLock().GetLockId()} {
		v := res.Msg.GetValidFor()[h].AsDuration()
		require.Greater(t, v, time.Duration(0), "lock %s", h)
		require.LessOrEqual(t, v, window, "lock %s", h)
	}
	_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: s, LockId: a.Msg.GetLock().GetLockId()}))
	require.NoError(t, err)
	res, err = c.KeepAlive(ctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: s}))
	require.NoError(t, err)
	require.NotContains(t, res.Msg.GetValidFor(), a.Msg.GetLock().GetLockId(), "a released lock gets no time")
	require.Contains(t, res.Msg.GetValidFor(), b.Msg.GetLock().GetLockId())
}
