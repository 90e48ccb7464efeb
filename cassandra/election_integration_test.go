//go:build integration

package cassandra_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/election"
	"github.com/lockstep-go/lockstep/queuelock"
)

// TestElection_OnARealNode runs package election against real Cassandra:
// its leader record lives in the queue table under a partition key that
// ends in a NUL byte (valid UTF-8 for a text key, and never a lock id),
// which only a real node can confirm it accepts. Two candidates: a leads, an
// observer that never campaigns reads a's value, b waits in line and leads
// once a resigns, with a higher term; then the record is b's.
func TestElection_OnARealNode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store := newStore(t)
	id := fmt.Sprintf("it-election-%d", time.Now().UnixNano())
	candidate := func(name string) *election.Election {
		clk := &clock.Local{}
		global, err := clock.NewGlobal(store, "", clk)
		require.NoError(t, err)
		lk, err := queuelock.New(store, &queuelock.Options{ProcessID: name, Clock: clk, Fencing: global, Poll: 20 * time.Millisecond})
		require.NoError(t, err)
		t.Cleanup(func() { _ = lk.Close(context.Background()) })
		e, err := election.New(lk, store, id, &election.Options{Clock: clk, Poll: 20 * time.Millisecond})
		require.NoError(t, err)
		return e
	}
	a, b := candidate("a"), candidate("b")
	observer, err := election.New(nil, store, id, nil)
	require.NoError(t, err)

	la, err := a.Campaign(ctx, "10.0.0.1:8080")
	require.NoError(t, err)
	who, ok, err := observer.Leader(ctx)
	require.NoError(t, err)
	require.True(t, ok, "no leader record on the real node")
	require.Equal(t, "10.0.0.1:8080", who.Value)
	require.Equal(t, la.Term(), who.Term)

	won := make(chan *election.Leadership, 1)
	go func() {
		lb, err := b.Campaign(ctx, "10.0.0.2:8080")
		if err != nil {
			t.Error(err)
			close(won)
			return
		}
		won <- lb
	}()
	require.NoError(t, la.Resign(ctx))
	lb := <-won
	require.NotNil(t, lb)
	require.Greater(t, lb.Term(), la.Term(), "terms increase across leaders")
	require.Eventually(t, func() bool {
		who, ok, err := observer.Leader(ctx)
		return err == nil && ok && who.Value == "10.0.0.2:8080" && who.Term == lb.Term()
	}, 10*time.Second, 20*time.Millisecond, "the observer never read b's record")
	require.NoError(t, lb.Resign(ctx))
}
