package client_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd/client"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Lock.Reentrant is true only for a Lock that took nothing, and a LOCKED
// error's ID names the member that stopped the Lock: here the intention
// lock on an ancestor the other session holds.
func TestSession_ReentrantAndTheLockedMember(t *testing.T) {
	srv := newServer(t, nil)
	ctx := t.Context()
	a := open(t, srv.url, &client.Options{Name: "export"})
	b := open(t, srv.url, nil)

	first, err := a.Lock(ctx, "rx/1")
	require.NoError(t, err)
	sibling, err := a.Lock(ctx, "rx/2")
	require.NoError(t, err)
	again, err := a.Lock(ctx, "rx/1")
	require.NoError(t, err)
	require.False(t, first.(*client.Lock).Reentrant())
	require.False(t, sibling.(*client.Lock).Reentrant(), "rx/2 was taken, only rx's intention lock shared")
	require.True(t, again.(*client.Lock).Reentrant())

	hold, err := a.Lock(ctx, "tree")
	require.NoError(t, err)
	_, err = b.TryLockGroup(ctx, lockstep.Request{ID: "free"}, lockstep.Request{ID: "tree/leaf", Access: lockstep.Shared})
	require.ErrorIs(t, err, lockstep.ErrLocked)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, pb.LockError_REASON_LOCKED, e.Reason)
	require.Equal(t, "tree", e.ID, "tree/leaf's intention lock on tree met the holder")
	require.Contains(t, e.Message, `("export") of this lockd`, "open mode: every caller may see the holder")
	for _, l := range []lockstep.Lock{hold, again, sibling, first} {
		require.NoError(t, l.Unlock(ctx))
	}
}
