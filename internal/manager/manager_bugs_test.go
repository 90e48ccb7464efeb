//go:build lockstep_bugs

package manager

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// planted returns a manager with knobs k, as newManager does.
func planted(t *testing.T, sep string, k TestingKnobs) (*fakeLocker, *table) {
	t.Helper()
	tab := newTable()
	m, err := New(sep, nil, nil, &k)
	require.NoError(t, err)
	return &fakeLocker{Manager: m, one: tab.one}, tab
}

func TestBugs_GroupUnorderedPlansInTheCallersOrder(t *testing.T) {
	m, _ := planted(t, "/", TestingKnobs{GroupUnordered: true})
	got, err := m.Plan(reqs("z", "a/b:S", "z:S"))
	require.NoError(t, err)
	assert.Equal(t, []string{"z:X", "a/b:S", "a:IS"}, strs(got))
}

// With the members taken in the caller's order, two groups asking for a
// and b in opposite orders each hold one and wait for the other: the
// deadlock TestAcquire_OppositeOrderGroupsDoNotDeadlock rules out.
func TestBugs_GroupUnorderedDeadlocks(t *testing.T) {
	m, tab := planted(t, "", TestingKnobs{GroupUnordered: true})
	// Each group's first take waits for the other's, so both hold one.
	var takes sync.WaitGroup
	takes.Add(2)
	var once [2]sync.Once
	tab.afterTake = func(id string) {
		i := map[string]int{"a": 0, "b": 1}[id]
		once[i].Do(func() { takes.Done(); takes.Wait() })
	}
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	type result struct {
		l   lockstep.Lock
		err error
	}
	errs := make(chan result, 2)
	for _, order := range [][]lockstep.Request{reqs("a", "b"), reqs("b", "a")} {
		go func() {
			l, err := m.Acquire(ctx, order, false)
			errs <- result{l, err}
		}()
	}
	tab.waitFor(t, "both groups to wait", func() bool { return tab.waiters("a") == 1 && tab.waiters("b") == 1 })
	// Each holds what the other waits for, and nothing else will move.
	assert.Equal(t, []string{"a:X", "b:X"}, tab.held())
	assert.Empty(t, errs)
	// Cancelling ends the wait: the first group to see it lets go, and the
	// other may then get through before it sees the cancellation.
	cancel()
	cancelled := 0
	for range 2 {
		r := <-errs
		if r.err == nil {
			require.NoError(t, r.l.Unlock(bg))
			continue
		}
		assert.ErrorIs(t, r.err, context.Canceled)
		cancelled++
	}
	assert.GreaterOrEqual(t, cancelled, 1)
	assert.Empty(t, tab.held())
}

// Without the intention lock on "a", an X holder of "a/b" and one of "a"
// share no id, and both hold.
func TestBugs_SkipIntentionMissesTheAncestorConflict(t *testing.T) {
	m, tab := planted(t, "/", TestingKnobs{SkipIntention: true})
	got, err := m.Plan(reqs("a/b/c:S"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a/b/c:S"}, strs(got))

	child, err := m.Acquire(bg, reqs("a/b"), false)
	require.NoError(t, err)
	parent, err := m.Acquire(bg, reqs("a"), true)
	require.NoError(t, err, "the conflict the intention lock exists for goes unseen")
	assert.Equal(t, []string{"a/b:X", "a:X"}, tab.held())
	require.NoError(t, parent.Unlock(bg))
	require.NoError(t, child.Unlock(bg))
}

// With GroupReturnsLostMember planted, the group comes back with a member
// already lost, its Lost() closed: what
// TestAcquire_MemberLostBeforeTheGroupIsCompleteFailsAndReleases rules out.
func TestBugs_GroupReturnsLostMember(t *testing.T) {
	m, tab := planted(t, "", TestingKnobs{GroupReturnsLostMember: true})
	loseAfterTaking(tab, "b", "a")
	l, err := m.Acquire(context.Background(), reqs("a", "b"), false)
	require.NoError(t, err)
	select {
	case <-l.Lost():
	default:
		t.Fatal("the returned group's Lost() is open, though member a was lost")
	}
	_ = l.Unlock(context.Background())
}

// With PublishAskedAccess the records of the two units that ask Shared
// and are taken exclusively show Shared waits and holdings: no conflict, no
// cycle, and the first unit waits until its deadline (30 s; the second's
// is later, and it proceeds once the first gave up) — the cycle
// TestTake_SharedRequestsTakenExclusivelyFormADetectedCycle sees broken.
func TestBugs_PublishAskedAccessLeavesTheSharedCycleUnseen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		errs := sharedCycle(t, &TestingKnobs{PublishAskedAccess: true}, 30*time.Second)
		require.ErrorIs(t, errs[0], context.DeadlineExceeded, "the first unit waits until its deadline")
		assert.NotErrorIs(t, errs[0], lockstep.ErrDeadlock)
		assert.NoError(t, errs[1], "the second proceeds once the first gave up")
		assert.GreaterOrEqual(t, time.Since(start), 30*time.Second)
	})
}
