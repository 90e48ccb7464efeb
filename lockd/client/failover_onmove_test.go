package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd/client"
)

// openReporting opens a fail-over session over srvs whose moves arrive on
// the returned channel.
func openReporting(t *testing.T, srvs []*server, ttl time.Duration) (*client.Session, <-chan client.Move) {
	t.Helper()
	moves := make(chan client.Move, 4)
	u := urls(srvs)
	s, err := client.Open(t.Context(), u[0], &client.Options{TTL: ttl, Endpoints: u[1:], OnMove: func(m client.Move) { moves <- m }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s, moves
}

func nextMove(t *testing.T, moves <-chan client.Move) client.Move {
	t.Helper()
	select {
	case m := <-moves:
		return m
	case <-time.After(3 * time.Second):
		t.Fatal("OnMove was not called within 3s")
		return client.Move{}
	}
}

// OnMove reports a move with the lockds it went from and to, when it began
// and ended, and the Locks it kept.
func TestFailover_OnMoveReportsAMoveAndItsLocks(t *testing.T) {
	srvs, cuts, _ := cluster(t, 2)
	s, moves := openReporting(t, srvs, 2*time.Second)
	ctx := t.Context()
	for _, id := range []string{"x", "y"} {
		_, err := s.Lock(ctx, id)
		require.NoError(t, err)
	}
	cut := time.Now()
	cuts[0].setCut(true)
	m := nextMove(t, moves)
	require.NoError(t, m.Err)
	require.Equal(t, srvs[0].url, m.From)
	require.Equal(t, srvs[1].url, m.To)
	require.Equal(t, 2, m.Kept)
	require.Zero(t, m.Lost)
	require.False(t, m.Began.Before(cut), "began %v before the cut %v", m.Began, cut)
	require.False(t, m.Ended.Before(m.Began))
	require.Equal(t, 1, s.Moves())
}

// A move that finds no lockd ends the session: OnMove reports it with the
// error and the Locks lost.
func TestFailover_OnMoveReportsAFailedMove(t *testing.T) {
	srvs, cuts, _ := cluster(t, 2)
	s, moves := openReporting(t, srvs, time.Second)
	x, err := s.Lock(t.Context(), "x")
	require.NoError(t, err)
	cuts[1].setCut(true)
	cuts[0].setCut(true)
	m := nextMove(t, moves)
	require.ErrorIs(t, m.Err, lockstep.ErrLost)
	require.Empty(t, m.To)
	require.Equal(t, 1, m.Lost)
	require.Zero(t, m.Kept)
	lostWithin(t, x, time.Second)
}

// An Unlock sent to a lockd that then stalls, while the session moves
// with the lock to another lockd, and answered by the old lockd once its
// old session has expired, releases the lock at the new lockd and
// succeeds: the move kept the lock, held throughout.
func TestFailover_UnlockTheOldLockdAnswersLateSucceedsAtTheNewOne(t *testing.T) {
	srvs, _, _ := cluster(t, 2)
	s := openOn(t, srvs, time.Second, nil)
	other := open(t, srvs[1].url, nil)
	x, err := s.Lock(t.Context(), "x")
	require.NoError(t, err)
	srvs[0].delay.Store(true)
	done := make(chan error, 1)
	go func() { done <- x.Unlock(context.Background()) }()
	waitMoves(t, s, 1, 3*time.Second)
	time.Sleep(1500 * time.Millisecond) // the old session expires at lockd 0 (TTL 1s)
	srvs[0].delay.Store(false)          // lockd 0 answers the Unlock: session expired
	select {
	case err := <-done:
		require.NoError(t, err, "the move kept the lock and the new lockd released it")
	case <-time.After(5 * time.Second):
		t.Fatal("Unlock did not return")
	}
	_, err = other.TryLock(t.Context(), "x")
	require.NoError(t, err, "x is free")
}
