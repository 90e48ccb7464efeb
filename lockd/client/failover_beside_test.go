package client_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// A client moves to a lockd where another session waits for the lock it
// holds (the robustness suite's case: two lockds serving one hot id): the
// new lockd adopts the lock beside its own waiter, so the client keeps it
// with its token, the waiter goes on waiting, and it acquires only after
// the moved lock's Unlock, with a greater token.
func TestFailover_MoveToALockdWhereAnotherSessionWaitsKeepsTheLock(t *testing.T) {
	srvs, cuts, _ := cluster(t, 2)
	s := openOn(t, srvs, 2*time.Second, nil)
	waiter := open(t, srvs[1].url, nil)
	ctx := t.Context()
	x, err := s.Lock(ctx, "x")
	require.NoError(t, err)
	token := x.(lockstep.Fenced).Token()

	type result struct {
		l   lockstep.Lock
		err error
	}
	got := make(chan result, 1)
	go func() {
		l, err := waiter.Lock(ctx, "x")
		got <- result{l, err}
	}()
	time.Sleep(200 * time.Millisecond) // the waiter's Lock is in lockd b's Locker, waiting in the store

	cuts[0].setCut(true)
	waitMoves(t, s, 1, 3*time.Second)
	require.Equal(t, srvs[1].url, s.Endpoint())
	select {
	case <-x.Lost():
		t.Fatal("the moved lock was lost: lockd b refused to adopt it beside its own waiter")
	case r := <-got:
		t.Fatalf("the waiter acquired x while the moved session held it: %v", r.err)
	case <-time.After(time.Second):
	}
	require.Equal(t, token, x.(lockstep.Fenced).Token())

	require.NoError(t, x.Unlock(ctx))
	select {
	case r := <-got:
		require.NoError(t, r.err)
		require.Greater(t, r.l.(lockstep.Fenced).Token(), token)
		require.NoError(t, r.l.Unlock(ctx))
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not acquire x within 10s of the moved lock's Unlock")
	}
}
