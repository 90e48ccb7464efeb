package lockd_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Locks of an identity that share a member move together: rx/1 and rx/2
// share the intention lock on rx; a group of a and b shares a with the
// lock of a taken before it. Another lockd adopts every one of them with
// its fencing token (a shared member is adopted once and counted by the
// later locks), and each is released only when its last lock is.
func TestPeerToken_LocksSharingAMemberAreAllAdopted(t *testing.T) {
	fa, fb := twoLockds(t, fixtureOptions{opts: lockd.Options{PeerKey: peerKey}}, lockd.Options{PeerKey: peerKey})
	ca, cb := fa.client("connect", "", nil), fb.client("connect", "", nil)
	ctx := context.Background()
	a := open(t, ca, 0)
	var want []int64
	for _, items := range [][]*pb.LockItem{
		{item("rx/1", pb.Access_ACCESS_EXCLUSIVE)},
		{item("rx/2", pb.Access_ACCESS_EXCLUSIVE)},
		{item("a", pb.Access_ACCESS_EXCLUSIVE)},
		{item("a", pb.Access_ACCESS_EXCLUSIVE), item("b", pb.Access_ACCESS_EXCLUSIVE)},
	} {
		l, err := ca.Lock(ctx, lockReq(a, items...))
		require.NoError(t, err)
		require.False(t, l.Msg.Lock.Reentrant, "%v took a lock of its own", items)
		want = append(want, l.Msg.Lock.Token)
	}
	tok := getToken(t, ca, a)

	b := open(t, cb, 0)
	res, err := setToken(cb, b, tok)
	require.NoError(t, err)
	require.Len(t, res.Locks, 4)
	var got []int64
	byID := map[string]string{}
	for _, l := range res.Locks {
		got = append(got, l.Token)
		byID[l.Items[len(l.Items)-1].Id] = l.LockId
	}
	require.ElementsMatch(t, want, got)
	closeSession(t, ca, a) // the giver leaves: B holds all of them
	for _, id := range []string{"rx/1", "rx/2", "a", "b"} {
		requireFree(t, ca, id, false)
	}

	unlock := func(handle string) {
		t.Helper()
		_, err := cb.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: b, LockId: handle}))
		require.NoError(t, err)
	}
	unlock(byID["rx/1"])
	requireFree(t, ca, "rx/1", true)
	requireFree(t, ca, "rx/2", false)
	unlock(byID["a"]) // the group still counts a
	requireFree(t, ca, "a", false)
	unlock(byID["b"])
	requireFree(t, ca, "a", true)
	requireFree(t, ca, "b", true)
	unlock(byID["rx/2"])
	requireFree(t, ca, "rx", true)
	closeSession(t, cb, b)
}
