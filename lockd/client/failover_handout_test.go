package client_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd/client"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// A Lock granted by a lockd that then gives no peer token naming it (it
// fails between the two answers) is not handed out: no move could carry
// it, so the call gives it back there and fails with ErrUnavailable, and
// the session moves. Nothing is lost, and the caller locks again at the
// new lockd.
func TestFailover_LockWithoutATokenNamingItIsGivenBack(t *testing.T) {
	srvs, _, _ := cluster(t, 2)
	s := openOn(t, srvs, 3*time.Second, nil)
	other := open(t, srvs[0].url, nil)
	ctx := t.Context()
	srvs[0].dropGetToken.Store(true)
	_, err := s.Lock(ctx, "x")
	require.ErrorIs(t, err, client.ErrUnavailable)
	require.ErrorContains(t, err, "gave no peer token naming it")
	require.ErrorContains(t, err, "given back there")
	require.NoError(t, s.Err())
	require.Equal(t, srvs[1].url, s.Endpoint(), "the session moved")
	y, err := other.TryLock(ctx, "x")
	require.NoError(t, err, "x was given back")
	require.NoError(t, y.Unlock(ctx))
	x, err := s.Lock(ctx, "x")
	require.NoError(t, err)
	require.NoError(t, x.Unlock(ctx))
}

// A Lock answered by the lockd a move is leaving, while the move is under
// way, is not handed out: the move's token was chosen when it began and
// does not name it. The call waits for the move, gives the lock back at
// the old lockd and fails with ErrUnavailable; nothing is counted held,
// so nothing is lost.
func TestFailover_LockAnsweredDuringAMoveIsGivenBack(t *testing.T) {
	srvs, _, _ := cluster(t, 2)
	s := openOn(t, srvs, 3*time.Second, nil)
	other := open(t, srvs[0].url, &client.Options{TTL: 10 * time.Second})
	ctx := t.Context()
	blocker, err := other.Lock(ctx, "x")
	require.NoError(t, err)
	type answer struct {
		l   lockstep.Lock
		err error
	}
	got := make(chan answer, 1)
	go func() {
		l, err := s.Lock(ctx, "x") // waits at lockd 0
		got <- answer{l, err}
	}()
	srvs[1].delay.Store(true)         // the move's OpenSession at lockd 1 waits
	srvs[0].dropKeepAlive.Store(true) // the session's keep-alive fails: it moves
	waitFor(t, func() bool { return srvs[1].delayed.Load() > 0 }, 3*time.Second)
	answers := srvs[0].lockAnswers.Load()
	require.NoError(t, blocker.Unlock(ctx)) // lockd 0 grants the waiting Lock, during the move
	// The move goes on once the client has had the answer for a while (a
	// client that hands it out returns at once).
	var a answer
	answered := false
	var sent time.Time
	waitFor(t, func() bool {
		select {
		case a = <-got:
			answered = true
		default:
		}
		if sent.IsZero() && srvs[0].lockAnswers.Load() > answers {
			sent = time.Now()
		}
		return answered || !sent.IsZero() && time.Since(sent) > 200*time.Millisecond
	}, 3*time.Second)
	srvs[1].delay.Store(false)
	if !answered {
		a = <-got
	}
	require.ErrorIs(t, a.err, client.ErrUnavailable, "the Lock answered during the move was handed out")
	require.ErrorContains(t, a.err, "moved off lockd "+srvs[0].url+" while it granted x")
	require.NoError(t, s.Err())
	require.Equal(t, srvs[1].url, s.Endpoint())
	y, err := other.TryLock(ctx, "x")
	require.NoError(t, err, "x was given back at lockd 0")
	require.NoError(t, y.Unlock(ctx))
}

// A move whose token names only locks no longer held (here one released
// at the old lockd behind the client's back; in a run, one whose Unlock
// the old lockd answered while the move began) is refused by the new
// lockd (UNKNOWN_TOKEN). The move goes on with nothing adopted: the lock
// is reported lost, as it is, and the session lives on at the new lockd
// rather than ending, so a Lock answered meanwhile is not lost with it.
func TestFailover_TokenNamingOnlyReleasedLocksMovesWithNone(t *testing.T) {
	srvs, cuts, _ := cluster(t, 2)
	s := openOn(t, srvs, 3*time.Second, nil)
	ctx := t.Context()
	x, err := s.Lock(ctx, "x")
	require.NoError(t, err)
	raw := lockstepv1connect.NewLockServiceClient(http.DefaultClient, srvs[0].url)
	_, err = raw.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: s.ID(), LockId: x.(*client.Lock).Handle()}))
	require.NoError(t, err)
	cuts[0].setCut(true)
	waitMoves(t, s, 1, 3*time.Second)
	require.NoError(t, s.Err(), "the session lives on")
	require.Equal(t, srvs[1].url, s.Endpoint())
	lostWithin(t, x, time.Second)
	require.ErrorIs(t, x.Unlock(ctx), lockstep.ErrLost)
	y, err := s.Lock(ctx, "y")
	require.NoError(t, err)
	require.NoError(t, y.Unlock(context.WithoutCancel(ctx)))
}

// waitFor polls cond every millisecond until it holds, failing the test
// after within.
func waitFor(t *testing.T, cond func() bool, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v", within)
		}
		time.Sleep(time.Millisecond)
	}
}
