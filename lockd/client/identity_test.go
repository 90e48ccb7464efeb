package client_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd/client"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Seed 003's getToken/setToken from Go: the taker adopts the giver's
// identity and holds its lock (same handle, same fencing token), the giver
// closes, a third session still meets a holder until the taker unlocks.
func TestSession_AdoptHandsTheLocksOver(t *testing.T) {
	srv := newServer(t, nil)
	ctx := t.Context()
	giver, taker, third := open(t, srv.url, nil), open(t, srv.url, nil), open(t, srv.url, nil)
	l, err := giver.Lock(ctx, "handover-1")
	require.NoError(t, err)
	tok, err := giver.Token(ctx)
	require.NoError(t, err)
	locks, err := taker.Adopt(ctx, tok)
	require.NoError(t, err)
	require.Len(t, locks, 1)
	require.Equal(t, "handover-1", locks[0].ID())
	require.Equal(t, l.(lockstep.Fenced).Token(), locks[0].(lockstep.Fenced).Token())
	require.Equal(t, l.(*client.Lock).Handle(), locks[0].(*client.Lock).Handle())
	require.NoError(t, giver.Close(ctx))
	_, err = third.TryLock(ctx, "handover-1")
	require.ErrorIs(t, err, lockstep.ErrLocked, "the giver's close released nothing")
	select {
	case <-locks[0].Lost():
		t.Fatal("the adopted lock is not lost when the giver closes")
	default:
	}
	require.NoError(t, locks[0].Unlock(ctx))
	l3, err := third.TryLock(ctx, "handover-1")
	require.NoError(t, err)
	require.NoError(t, l3.Unlock(ctx))
}

// Adopt's refusals wrap the library's sentinels where one fits, and
// change nothing.
func TestSession_AdoptRefusals(t *testing.T) {
	srv := newServer(t, nil)
	ctx := t.Context()
	a, b := open(t, srv.url, nil), open(t, srv.url, nil)
	_, err := b.Adopt(ctx, "not-a-token")
	require.ErrorIs(t, err, lockstep.ErrShareToken)
	gone := open(t, srv.url, nil)
	tok, err := gone.Token(ctx)
	require.NoError(t, err)
	require.NoError(t, gone.Close(ctx))
	_, err = b.Adopt(ctx, tok)
	require.ErrorIs(t, err, lockstep.ErrReleased, "every session of the identity ended: its locks were released")
	own, err := a.Token(ctx)
	require.NoError(t, err)
	_, err = a.Adopt(ctx, own)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, pb.LockError_REASON_OWN_TOKEN, e.Reason)
	_, err = a.Lock(ctx, "keep-1")
	require.NoError(t, err)
	btok, err := b.Token(ctx)
	require.NoError(t, err)
	_, err = a.Adopt(ctx, btok)
	require.ErrorAs(t, err, &e)
	require.Equal(t, pb.LockError_REASON_HOLDS_LOCKS, e.Reason)
	_, err = b.TryLock(ctx, "keep-1")
	require.ErrorIs(t, err, lockstep.ErrLocked, "a still holds keep-1 under its own identity")
}
