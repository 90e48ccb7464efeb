package manager

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/deadlock"
	"github.com/lockstep-go/lockstep/model"
)

// exclusiveLocker is a fake Locker that takes every member exclusively,
// as the legacy lock does, and says so through Step.Take.
func exclusiveLocker(m *Manager, t *table) *fakeLocker {
	return &fakeLocker{Manager: m, one: func(ctx context.Context, id string, _ lockstep.Access, try bool) (lockstep.Lock, error) {
		return t.one(ctx, id, lockstep.Exclusive, try)
	}}
}

// driveTaking is drive with st.Take(a) before each take.
func (l *fakeLocker) driveTaking(run *Run, a lockstep.Access) (lockstep.Lock, error) {
	for run.Next() {
		st := run.Step()
		st.Take(a)
		run.Done(l.one(st.Ctx(), st.ID, st.Access, st.Try))
	}
	return run.Result()
}

// holdsOf lists what w holds as "id:ACCESS".
func holdsOf(m *Manager, w waiter) []string {
	var out []string
	for _, h := range m.holds(w) {
		out = append(out, h.ID+":"+h.Access.String())
	}
	return out
}

// A member the Locker said it took exclusively is listed as held
// exclusively, by a call and by a reentrancy holder; one taken as asked is
// listed as asked; and reentrancy still counts the access asked (a Shared
// request taken exclusively does not cover a later Exclusive one).
func TestTake_HoldingsListTheAccessTaken(t *testing.T) {
	m, err := New("", nil, nil, nil)
	require.NoError(t, err)
	l := exclusiveLocker(m, newTable())

	run := startGroup(m, bg, reqs("a:S", "b:S"), false)
	require.True(t, run.Next())
	st := run.Step()
	st.Take(lockstep.Exclusive)
	run.Done(l.one(st.Ctx(), st.ID, st.Access, st.Try))
	assert.Equal(t, []string{"a:X"}, holdsOf(m, run.w), "the call's holding, taken exclusively")
	require.True(t, run.Next())
	st = run.Step()
	run.Done(l.one(st.Ctx(), st.ID, st.Access, st.Try)) // no Take: as asked
	assert.Equal(t, []string{"a:X", "b:S"}, holdsOf(m, run.w))
	require.False(t, run.Next())
	g, err := run.Result()
	require.NoError(t, err)
	require.NoError(t, g.Unlock(bg))

	type unit struct{ _ byte }
	holder := &unit{}
	ctx := forUnit(bg, holder)
	g, err = l.driveTaking(startGroup(m, ctx, reqs("c:S"), false), lockstep.Exclusive)
	require.NoError(t, err)
	assert.Equal(t, []string{"c:X"}, holdsOf(m, waiter{identity: holder, reentrant: true}), "the holder's holding, taken exclusively")
	again, err := l.driveTaking(startGroup(m, ctx, reqs("c:S"), false), lockstep.Exclusive)
	require.NoError(t, err, "a reentrant Shared request is counted")
	_, err = l.driveTaking(startGroup(m, ctx, reqs("c"), false), lockstep.Exclusive)
	require.ErrorIs(t, err, lockstep.ErrUpgrade, "reentrancy counts the access asked, not the one taken")
	require.NoError(t, again.Unlock(bg))
	require.NoError(t, g.Unlock(bg))
}

// Take refuses what would publish less than is taken, and a call outside a
// step, with a panic: both are a Locker's bugs.
func TestTake_RefusesAWeakerAccessAndACallOutsideAStep(t *testing.T) {
	m, err := New("", nil, nil, nil)
	require.NoError(t, err)
	l := exclusiveLocker(m, newTable())
	run := startGroup(m, bg, reqs("a", "b:S"), false)
	require.True(t, run.Next())
	st := run.Step()
	assert.PanicsWithValue(t, "manager: Step.Take(S) for a request of X: a take is never weaker than the request",
		func() { st.Take(lockstep.Shared) })
	assert.Panics(t, func() { st.Take(lockstep.Access(200)) })
	st.Take(lockstep.Exclusive) // the access asked: nothing to say, and no harm
	run.Done(l.one(st.Ctx(), st.ID, st.Access, st.Try))
	assert.Panics(t, func() { st.Take(lockstep.Exclusive) }, "after Done")
	for run.Next() {
		st := run.Step()
		run.Done(l.one(st.Ctx(), st.ID, st.Access, st.Try))
	}
	g, err := run.Result()
	require.NoError(t, err)
	require.NoError(t, g.Unlock(bg))
}

// Two units of work ask Shared for a then b and b then a through Lockers
// that take every member exclusively: with Step.Take, the records show the
// conflict and exactly one unit gets ErrDeadlock, its cycle in Exclusive;
// the other proceeds once the victim released what it holds.
func TestTake_SharedRequestsTakenExclusivelyFormADetectedCycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errs := sharedCycle(t, nil, time.Minute)
		var victims []error
		for _, err := range errs {
			if err != nil {
				require.ErrorIs(t, err, lockstep.ErrDeadlock)
				victims = append(victims, err)
			}
		}
		require.Len(t, victims, 1, "exactly one victim")
		var de *lockstep.DeadlockError
		require.True(t, errors.As(victims[0], &de))
		require.Len(t, de.Cycle, 2)
		for _, mb := range de.Cycle {
			assert.Equal(t, lockstep.Exclusive, mb.Waits.Access, "the wait, in the access taken")
			assert.Equal(t, lockstep.Exclusive, mb.HeldIn, "the holding, in the access taken")
		}
	})
}

// sharedCycle runs the two units of TestTake_SharedRequestsTakenExclusivelyFormADetectedCycle
// on Managers with knobs k, unit i's calls bounded by (i+1)·limit, and
// returns each unit's second call's error.
func sharedCycle(t *testing.T, k *TestingKnobs, limit time.Duration) [2]error {
	s := model.New(&clock.Local{})
	tab := newTable()
	var ls [2]*fakeLocker
	for i := range ls {
		det, err := deadlock.New(deadlock.Config{Store: s, Clock: &clock.Local{}, Process: []string{"p0", "p1"}[i]})
		require.NoError(t, err)
		m, err := New("", &clock.Local{}, det, k)
		require.NoError(t, err)
		ls[i] = exclusiveLocker(m, tab)
	}
	order := [2][2]string{{"a:S", "b:S"}, {"b:S", "a:S"}}
	type unit struct{ n int }
	var firsts [2]lockstep.Lock
	var ctxs [2]context.Context
	for i := range ls {
		tctx, cancel := context.WithTimeout(bg, time.Duration(i+1)*limit)
		t.Cleanup(cancel)
		ctx := forUnit(tctx, &unit{i})
		ctxs[i] = ctx
		var err error
		firsts[i], err = ls[i].driveTaking(startGroup(ls[i], ctx, reqs(order[i][0]), false), lockstep.Exclusive)
		require.NoError(t, err)
	}
	var out [2]error
	done := make(chan struct{}, 2)
	for i := range ls {
		go func() {
			defer func() { done <- struct{}{} }()
			second, err := ls[i].driveTaking(startGroup(ls[i], ctxs[i], reqs(order[i][1]), false), lockstep.Exclusive)
			out[i] = err
			if err == nil {
				_ = second.Unlock(bg)
			}
			_ = firsts[i].Unlock(bg) // what ErrDeadlock asks
		}()
	}
	<-done
	<-done
	return out
}
