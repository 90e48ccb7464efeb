package client_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd/client"
)

// Sibling hierarchical locks share the intention lock on their parent, and
// neither is reentrant: both move, with their fencing tokens.
func TestFailover_SiblingHierarchicalLocksBothMove(t *testing.T) {
	srvs, cuts, _ := cluster(t, 2)
	s := openOn(t, srvs, 3*time.Second, nil)
	other := open(t, srvs[1].url, nil)
	ctx := t.Context()
	r1, err := s.Lock(ctx, "rx/1")
	require.NoError(t, err)
	r2, err := s.Lock(ctx, "rx/2")
	require.NoError(t, err)
	require.False(t, r2.(*client.Lock).Reentrant(), "rx/2 took a lock of its own")
	locks := []lockstep.Lock{r1, r2}
	tokens := []int64{r1.(lockstep.Fenced).Token(), r2.(lockstep.Fenced).Token()}

	cuts[0].setCut(true)
	waitMoves(t, s, 1, 3*time.Second)
	require.NoError(t, s.Err())
	requireKept(t, other, locks, tokens)
	require.NoError(t, r1.Unlock(ctx))
	_, err = other.TryLock(ctx, "rx/2")
	require.ErrorIs(t, err, lockstep.ErrLocked, "rx/2 is still held")
	require.NoError(t, r2.Unlock(ctx))
}

// A lock taken twice whose first Lock was unlocked is still held, counted
// once, by the second: it moves, and its Unlock then releases it at the
// new lockd.
func TestFailover_ReentrantLockLeftAfterTheFirstUnlockMoves(t *testing.T) {
	srvs, cuts, _ := cluster(t, 2)
	s := openOn(t, srvs, 3*time.Second, nil)
	other := open(t, srvs[1].url, nil)
	ctx := t.Context()
	q1, err := s.Lock(ctx, "q")
	require.NoError(t, err)
	q2, err := s.Lock(ctx, "q")
	require.NoError(t, err)
	require.True(t, q2.(*client.Lock).Reentrant())
	require.NoError(t, q1.Unlock(ctx))

	cuts[0].setCut(true)
	waitMoves(t, s, 1, 3*time.Second)
	require.NoError(t, s.Err())
	select {
	case <-q2.Lost():
		t.Fatal("q was lost at the move")
	default:
	}
	require.Equal(t, q1.(lockstep.Fenced).Token(), q2.(lockstep.Fenced).Token())
	_, err = other.TryLock(ctx, "q")
	require.ErrorIs(t, err, lockstep.ErrLocked, "q is held")
	require.NoError(t, q2.Unlock(ctx))
}

// Two Locks of one id, both held, move as one acquisition counted twice:
// the first Unlock after the move leaves it held, the second releases it
// at the new lockd.
func TestFailover_ReentrantLockCountedTwiceMovesCountedTwice(t *testing.T) {
	srvs, cuts, _ := cluster(t, 2)
	s := openOn(t, srvs, 3*time.Second, nil)
	other := open(t, srvs[1].url, nil)
	ctx := t.Context()
	q1, err := s.Lock(ctx, "q")
	require.NoError(t, err)
	q2, err := s.Lock(ctx, "q")
	require.NoError(t, err)

	cuts[0].setCut(true)
	waitMoves(t, s, 1, 3*time.Second)
	require.NoError(t, s.Err())
	requireKept(t, other, []lockstep.Lock{q1, q2}, []int64{q1.(lockstep.Fenced).Token(), q1.(lockstep.Fenced).Token()})
	require.NoError(t, q2.Unlock(ctx))
	_, err = other.TryLock(ctx, "q")
	require.ErrorIs(t, err, lockstep.ErrLocked, "q is still counted once")
	require.NoError(t, q1.Unlock(ctx))
	_, err = other.TryLock(ctx, "q")
	require.ErrorIs(t, err, lockstep.ErrLocked, "the cut lockd's share holds q until its session lapses")
}
