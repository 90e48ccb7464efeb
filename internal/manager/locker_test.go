package manager

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/model"
)

// shellPart is a held.Part that counts its releases.
type shellPart struct {
	mu       sync.Mutex
	released int
}

func (p *shellPart) Stop() bool    { return false }
func (p *shellPart) Expired() bool { return false }
func (p *shellPart) Release(context.Context) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.released++
	return true, nil
}

// events records AcquireEvents.
type events struct {
	lockstep.NopObserver
	mu  sync.Mutex
	got []lockstep.AcquireEvent
}

func (e *events) ObserveAcquire(_ context.Context, ev lockstep.AcquireEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, ev)
}

// funcAlg is an Algorithm whose Take is take.
type funcAlg struct {
	take func(ctx context.Context, a *Acquisition) (held.Spec, error)
}

func (f funcAlg) Take(ctx context.Context, a *Acquisition) (held.Spec, error) { return f.take(ctx, a) }
func (f funcAlg) Close(context.Context) error                                 { return nil }

// testLocker is a Locker over funcAlg, whose Lock (with try, TryLock)
// takes a flat id without a reentrancy holder.
type testLocker struct{ *Locker }

func (l testLocker) Lock(ctx context.Context, id string, try bool) (lockstep.Lock, error) {
	if try {
		return l.Locker.TryLock(ctx, id)
	}
	return l.Locker.Lock(ctx, id)
}

func newTestShell(t *testing.T, take func(context.Context, *Acquisition) (held.Spec, error)) (testLocker, *events) {
	t.Helper()
	obs := &events{}
	l, err := NewLocker(funcAlg{take}, Config{Name: "algo", Mode: lockstep.ModeNew, Clock: model.NewManualClock(0), Observer: obs})
	require.NoError(t, err)
	return testLocker{l}, obs
}

func TestLocker_HoldsReportsAndCloseReleases(t *testing.T) {
	p := &shellPart{}
	s, obs := newTestShell(t, func(_ context.Context, a *Acquisition) (held.Spec, error) {
		a.Attempts, a.Requests = 1, 2
		return held.Spec{ID: a.ID, Owner: "o.1", Mode: lockstep.ModeNew, Parts: []held.Part{p}, Loss: held.NewLoss()}, nil
	})
	lk, err := s.Lock(context.Background(), "a", false)
	require.NoError(t, err)
	assert.Equal(t, "a", lk.ID())
	require.Len(t, obs.got, 1)
	assert.Equal(t, lockstep.AcquireEvent{ID: "a", Owner: "o.1", Mode: lockstep.ModeNew, Access: lockstep.Exclusive,
		Acquired: true, Attempts: 1, Requests: 2}, obs.got[0])

	require.NoError(t, s.Close(context.Background()))
	assert.Equal(t, 1, p.released, "Close releases what the Locker holds")
	require.NoError(t, lk.Unlock(context.Background()))
	assert.Equal(t, 1, p.released, "a released lock is released once")
	_, err = s.Lock(context.Background(), "a", false)
	assert.ErrorIs(t, err, lockstep.ErrClosed)
	assert.Len(t, obs.got, 1, "a call refused by a closed Locker reports nothing")
}

func TestLocker_UnlockedLockIsForgotten(t *testing.T) {
	p := &shellPart{}
	s, _ := newTestShell(t, func(_ context.Context, a *Acquisition) (held.Spec, error) {
		return held.Spec{ID: a.ID, Owner: "o.1", Mode: lockstep.ModeNew, Parts: []held.Part{p}, Loss: held.NewLoss()}, nil
	})
	lk, err := s.Lock(context.Background(), "a", false)
	require.NoError(t, err)
	require.NoError(t, lk.Unlock(context.Background()))
	require.NoError(t, s.Close(context.Background()))
	assert.Equal(t, 1, p.released, "Close does not release an unlocked lock again")
}

func TestLocker_FailureIsReportedWithItsCounts(t *testing.T) {
	errTake := errors.New("take failed")
	s, obs := newTestShell(t, func(_ context.Context, a *Acquisition) (held.Spec, error) {
		a.Attempts, a.Requests = 3, 4
		return held.Spec{}, errTake
	})
	_, err := s.Lock(context.Background(), "a", true)
	require.ErrorIs(t, err, errTake)
	require.Len(t, obs.got, 1)
	e := obs.got[0]
	assert.True(t, e.Try)
	assert.False(t, e.Acquired)
	assert.Equal(t, [2]int{3, 4}, [2]int{e.Attempts, e.Requests})
	assert.ErrorIs(t, e.Err, errTake)
}

func TestLocker_InvalidIDIsRefusedBeforeTake(t *testing.T) {
	s, obs := newTestShell(t, func(context.Context, *Acquisition) (held.Spec, error) {
		t.Fatal("Take called for an invalid id")
		return held.Spec{}, nil
	})
	_, err := s.Lock(context.Background(), "", false)
	require.ErrorIs(t, err, lockstep.ErrInvalidID)
	assert.Empty(t, obs.got)
}

func TestLocker_CloseEndsATakeWithErrClosed(t *testing.T) {
	started := make(chan struct{})
	s, obs := newTestShell(t, func(ctx context.Context, _ *Acquisition) (held.Spec, error) {
		close(started)
		<-ctx.Done()
		return held.Spec{}, ctx.Err()
	})
	errc := make(chan error, 1)
	go func() {
		_, err := s.Lock(context.Background(), "a", false)
		errc <- err
	}()
	<-started
	require.NoError(t, s.Close(context.Background()))
	err := <-errc
	require.ErrorIs(t, err, lockstep.ErrClosed)
	assert.Equal(t, `algo: "a": lockstep: locker closed`, err.Error())
	require.Len(t, obs.got, 1)
	assert.ErrorIs(t, obs.got[0].Err, lockstep.ErrClosed)
}

// A Commented unit is the same unit of work: its Lock of an id the unit
// holds is counted, with no take, and the unit's UnlockAll releases both;
// another unit's Lock of the id is a take of its own.
func TestUnit_CommentedIsTheSameUnit(t *testing.T) {
	var takes int
	parts := map[string]*shellPart{}
	s, _ := newTestShell(t, func(_ context.Context, a *Acquisition) (held.Spec, error) {
		takes++
		p := &shellPart{}
		parts[fmt.Sprint(takes)] = p
		return held.Spec{ID: a.ID, Owner: fmt.Sprintf("o.%d", takes), Mode: lockstep.ModeNew, Parts: []held.Part{p}, Loss: held.NewLoss()}, nil
	})
	ctx := context.Background()
	u := s.Unit("first")
	_, err := u.Lock(ctx, "x")
	require.NoError(t, err)
	again, err := u.Commented("second").Lock(ctx, "x")
	require.NoError(t, err)
	assert.Equal(t, 1, takes, "the commented unit's Lock of a held id is counted")
	assert.Equal(t, "o.1", again.Owner())
	other, err := s.Unit("").Lock(ctx, "x")
	require.NoError(t, err)
	assert.Equal(t, 2, takes, "another unit takes the id itself")
	require.NoError(t, u.Commented("third").UnlockAll(ctx))
	assert.Equal(t, 1, parts["1"].released, "UnlockAll of the unit releases what both its names took")
	assert.Zero(t, parts["2"].released, "another unit's lock stays")
	require.NoError(t, other.Unlock(ctx))
}
