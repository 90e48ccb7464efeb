package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// A lockd shut down gracefully drains its sessions: a client given the
// other lockd moves there with every lock (the same Lock values and
// fencing tokens, held throughout), closes the session it left, and so
// lets the shutdown finish long before the drain's bound; a client given
// no other lockd loses its locks at once, as at any shutdown.
func TestDrain_AClientThatCanMoveKeepsItsLocksAcrossAShutdown(t *testing.T) {
	srvs, _, _ := cluster(t, 2)
	s := openOn(t, srvs, 2*time.Second, nil)
	single := open(t, srvs[0].url, nil)
	other := open(t, srvs[1].url, nil)
	ctx := t.Context()
	x, err := s.Lock(ctx, "x")
	require.NoError(t, err)
	g, err := s.LockGroup(ctx, lockstep.Request{ID: "g/1"}, lockstep.Request{ID: "g/2", Access: lockstep.Shared})
	require.NoError(t, err)
	y, err := single.Lock(ctx, "y")
	require.NoError(t, err)
	locks := []lockstep.Lock{x, g}
	tokens := []int64{x.(lockstep.Fenced).Token(), g.(lockstep.Fenced).Token()}

	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, srvs[0].srv.Close(cctx))
	took := time.Since(start)
	t.Logf("the shutdown drained in %v", took)
	require.Less(t, took, 4*time.Second, "the moved session was closed by its client, so Close did not wait out the 5s drain")

	require.Equal(t, 1, s.Moves())
	require.Equal(t, srvs[1].url, s.Endpoint())
	requireKept(t, other, locks, tokens)
	lostWithin(t, y, time.Second)
	require.ErrorIs(t, single.Err(), lockstep.ErrLost)

	// The locks are the moved session's: Unlock releases them at the new
	// lockd, and another session takes them with a greater token.
	require.NoError(t, x.Unlock(ctx))
	x2, err := other.TryLock(ctx, "x")
	require.NoError(t, err)
	require.Greater(t, x2.(lockstep.Fenced).Token(), tokens[0])
	require.NoError(t, g.Unlock(ctx))
	_, err = other.TryLock(ctx, "g/1")
	require.NoError(t, err)
}

// While a lockd drains, a Lock there is refused with SHUTTING_DOWN (a
// client given other lockds moves and takes it there); sessions that
// cannot move are closed without waiting for the drain; and a session
// whose client never moves it is closed when the drain runs out, its
// locks released.
func TestDrain_LockIsMovedAndAnUnmovedSessionEndsWithTheDrain(t *testing.T) {
	srvs, _, _ := cluster(t, 2)
	ctx := t.Context()
	// A client that read a peer token (so its session can move) but takes
	// no part in the drain: Options.Endpoints empty, the token read by hand.
	stay := open(t, srvs[0].url, nil)
	_, err := stay.Token(ctx)
	require.NoError(t, err)
	z, err := stay.Lock(ctx, "z")
	require.NoError(t, err)
	s := openOn(t, srvs, 2*time.Second, nil)
	x, err := s.Lock(ctx, "x")
	require.NoError(t, err)

	start := time.Now()
	closed := make(chan error, 1)
	go func() { closed <- srvs[0].srv.Close(context.Background()) }()
	waitMoves(t, s, 1, 2*time.Second)
	w, err := s.Lock(ctx, "w") // at the lockd it moved to
	require.NoError(t, err)
	require.NoError(t, w.Unlock(ctx))
	select {
	case <-z.Lost():
		t.Fatal("a session that can move is kept until the drain ends")
	case <-time.After(500 * time.Millisecond):
	}
	require.NoError(t, <-closed)
	took := time.Since(start)
	t.Logf("Close returned after %v", took)
	require.GreaterOrEqual(t, took, 5*time.Second, "the unmoved session kept the drain to its bound (DefaultDrain)")
	lostWithin(t, z, time.Second)
	requireKept(t, open(t, srvs[1].url, nil), []lockstep.Lock{x}, []int64{x.(lockstep.Fenced).Token()})
}
