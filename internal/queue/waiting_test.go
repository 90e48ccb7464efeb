package queue

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/model"
)

// takeCore takes id exclusively on the core Locker l.
func takeCore(t *testing.T, l *Locker, id string) held.Spec {
	t.Helper()
	s, err := l.Take(context.Background(), &manager.Acquisition{ID: id, Access: lockstep.Exclusive})
	require.NoError(t, err)
	return s
}

// releaseCore releases what takeCore took.
func releaseCore(t *testing.T, s held.Spec) {
	t.Helper()
	for _, p := range s.Parts {
		p.Stop()
		_, err := p.Release(context.Background())
		require.NoError(t, err)
	}
}

// TestQueueLock_WaitingSeesAWaiterNamedBelowAnUnpublishedFloor: a look
// starts at the floor this process published, not at a higher one it
// learned and never wrote, so another process's waiter named between the
// two, which no floor cell tells to take a new place, is seen.
func TestQueueLock_WaitingSeesAWaiterNamedBelowAnUnpublishedFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &clock.Local{}
		ms := model.New(clk)
		a, err := newCore(ms, &Options{Clock: clk}, settings(t, "a"), nil)
		require.NoError(t, err)
		defer func() { require.NoError(t, a.Close(context.Background())) }()
		b, err := newCore(ms, &Options{Clock: clk}, settings(t, "b"), nil)
		require.NoError(t, err)
		defer func() { require.NoError(t, b.Close(context.Background())) }()
		s := takeCore(t, a, "x")
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := b.Take(ctx, &manager.Acquisition{ID: "x", Access: lockstep.Exclusive})
			done <- err
		}()
		synctest.Wait() // b's queue cell is written; b waits
		row := a.row("x")
		a.floors.mu.Lock()
		e := a.floors.m[row]
		require.Less(t, e.stored, clk.Now(), "the published floor is below b's name")
		e.value = clk.Now() + time.Hour.Microseconds() // learned, never published
		a.floors.m[row] = e
		a.floors.mu.Unlock()
		waiting, err := a.Waiting(context.Background(), s)
		require.NoError(t, err)
		require.True(t, waiting, "b's queue cell, named below a's unpublished floor, is seen")
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		releaseCore(t, s)
	})
}

// TestQueueLock_WaitingRaisesNoFloorItDoesNotPublish: a look that sees no
// queue cell leaves this process's floor where its claim published it.
func TestQueueLock_WaitingRaisesNoFloorItDoesNotPublish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &clock.Local{}
		ms := model.New(clk)
		a, err := newCore(ms, &Options{Clock: clk}, settings(t, "a"), nil)
		require.NoError(t, err)
		defer func() { require.NoError(t, a.Close(context.Background())) }()
		s := takeCore(t, a, "x")
		row := a.row("x")
		a.floors.mu.Lock()
		before := a.floors.m[row].value
		a.floors.mu.Unlock()
		time.Sleep(time.Minute) // virtual: the look's read starts long after the claim
		waiting, err := a.Waiting(context.Background(), s)
		require.NoError(t, err)
		require.False(t, waiting)
		a.floors.mu.Lock()
		after := a.floors.m[row]
		a.floors.mu.Unlock()
		require.Equal(t, before, after.value, "the look learned no floor")
		releaseCore(t, s)
	})
}
