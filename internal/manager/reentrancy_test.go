package manager

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

func (m *Manager) registered() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.reg)
}

// Seed 003, functional scenario 3: take a write lock twice, release it
// twice; the same for a read lock. No error, and the id is free afterwards.
func TestReentrancy_Seed003Scenario3(t *testing.T) {
	for _, access := range []string{"X", "S"} {
		t.Run(access, func(t *testing.T) {
			m, tab := newManager(t, "/")
			ctx := forUnit(bg, "unit-of-work")
			first, err := m.Acquire(ctx, reqs("dir/file:"+access), false)
			require.NoError(t, err)
			calls := tab.callCount()
			second, err := m.Acquire(ctx, reqs("dir/file:"+access), false)
			require.NoError(t, err, "a second acquisition by the holder must not wait for itself")
			assert.Equal(t, calls, tab.callCount(), "a reentrant acquisition sends no store request")

			require.NoError(t, second.Unlock(bg))
			assert.Len(t, tab.held(), 2, "still held after the inner release")
			require.NoError(t, first.Unlock(bg))
			assert.Empty(t, tab.held())
			assert.Zero(t, m.registered(), "the registry forgets what is released")

			// Free: anyone can take it now, in X.
			l, err := m.Acquire(bg, reqs("dir/file"), true)
			require.NoError(t, err)
			require.NoError(t, l.Unlock(bg))
		})
	}
}

func TestReentrancy_ReleaseOrderDoesNotMatter(t *testing.T) {
	m, tab := newManager(t, "")
	ctx := forUnit(bg, 7)
	a, err := m.Acquire(ctx, reqs("k"), false)
	require.NoError(t, err)
	b, err := m.Acquire(ctx, reqs("k:S", "l"), false) // X covers S
	require.NoError(t, err)
	require.NoError(t, a.Unlock(bg))
	assert.Equal(t, []string{"k:X", "l:X"}, tab.held(), "b still holds k")
	require.NoError(t, b.Unlock(bg))
	assert.Empty(t, tab.held())
	assert.Zero(t, m.registered())
}

func TestReentrancy_WeakerHeldAccessIsAnUpgradeError(t *testing.T) {
	m, tab := newManager(t, "/")
	ctx := forUnit(bg, "job")
	r, err := m.Acquire(ctx, reqs("d/f:S"), false)
	require.NoError(t, err)
	calls := tab.callCount()

	_, err = m.Acquire(ctx, reqs("d/f"), false)
	require.ErrorIs(t, err, lockstep.ErrUpgrade)
	assert.Contains(t, err.Error(), `holds "d" in IS, which does not cover IX`)
	// Under a hierarchy the intention locks count too: S on d/f holds IS on d.
	_, err = m.Acquire(ctx, reqs("d/g"), false)
	require.ErrorIs(t, err, lockstep.ErrUpgrade)

	// A group that took new members before meeting the upgrade releases them.
	_, err = m.Acquire(ctx, reqs("c", "d/f"), false)
	require.ErrorIs(t, err, lockstep.ErrUpgrade)
	assert.Equal(t, 1, tab.callCount()-calls, "only c was taken")
	assert.Equal(t, []string{"d/f:S", "d:IS"}, tab.held())
	assert.Equal(t, 2, m.registered())

	require.NoError(t, r.Unlock(bg))
	assert.Empty(t, tab.held())
	assert.Zero(t, m.registered())
}

func TestReentrancy_OtherHoldersAndNoHolderWait(t *testing.T) {
	m, tab := newManager(t, "")
	l, err := m.Acquire(forUnit(bg, "a"), reqs("k"), false)
	require.NoError(t, err)
	_, err = m.Acquire(forUnit(bg, "b"), reqs("k"), true)
	assert.ErrorIs(t, err, lockstep.ErrLocked)
	_, err = m.Acquire(bg, reqs("k"), true)
	assert.ErrorIs(t, err, lockstep.ErrLocked, "without a holder a second acquisition is another contender")
	require.NoError(t, l.Unlock(bg))
	assert.Empty(t, tab.held())
}

func TestReentrancy_NoHolderLeavesTheRegistryAlone(t *testing.T) {
	m, _ := newManager(t, "/")
	l, err := m.Acquire(bg, reqs("a/b", "c"), false)
	require.NoError(t, err)
	assert.Zero(t, m.registered())
	assert.Nil(t, groupOf(t, l).members[0].key)
	require.NoError(t, l.Unlock(bg))
}

func TestReentrancy_FailedLastReleaseIsRetriedByTheSameGroup(t *testing.T) {
	m, tab := newManager(t, "")
	ctx := forUnit(bg, "job")
	outer, err := m.Acquire(ctx, reqs("k"), false)
	require.NoError(t, err)
	inner, err := m.Acquire(ctx, reqs("k"), false)
	require.NoError(t, err)
	tab.failUnlock["k"] = 1
	require.NoError(t, inner.Unlock(bg), "not the last reference: nothing to delete")
	require.ErrorIs(t, outer.Unlock(bg), errStore)
	assert.Zero(t, m.registered(), "the entry goes with the last reference")
	assert.Equal(t, []string{"k:X"}, tab.held())
	require.NoError(t, outer.Unlock(bg))
	assert.Empty(t, tab.held())
}

func TestReentrancy_SecondCallOfAHolderWaitsForItsFirst(t *testing.T) {
	m, tab := newManager(t, "")
	other, err := m.Acquire(bg, reqs("k"), false)
	require.NoError(t, err)
	ctx := forUnit(bg, "job")

	var wg sync.WaitGroup
	locks := make([]lockstep.Lock, 2)
	wg.Go(func() {
		var err error
		locks[0], err = m.Acquire(ctx, reqs("k"), false)
		assert.NoError(t, err)
	})
	tab.waitFor(t, "the first to queue", func() bool { return tab.waiters("k") == 1 })
	_, err = m.Acquire(ctx, reqs("k"), true)
	assert.ErrorIs(t, err, lockstep.ErrLocked, "a try does not wait for the holder's pending one")
	wg.Go(func() {
		var err error
		locks[1], err = m.Acquire(ctx, reqs("k:S"), false)
		assert.NoError(t, err)
	})
	require.NoError(t, other.Unlock(bg))
	wg.Wait()
	assert.Equal(t, 2, tab.callCount(), "other and the first: the try met the pending entry, the second was only counted")
	require.NoError(t, locks[1].Unlock(bg))
	require.NoError(t, locks[0].Unlock(bg))
	assert.Empty(t, tab.held())
	assert.Zero(t, m.registered())
}

func TestReentrancy_PendingWaitEndsWithCtx(t *testing.T) {
	m, tab := newManager(t, "")
	other, err := m.Acquire(bg, reqs("k"), false)
	require.NoError(t, err)
	holder := forUnit(bg, "job")
	firstCtx, cancelFirst := context.WithCancel(holder)
	errc := make(chan error, 1)
	go func() {
		_, err := m.Acquire(firstCtx, reqs("k"), false)
		errc <- err
	}()
	tab.waitFor(t, "the first to queue", func() bool { return tab.waiters("k") == 1 })
	ctx, cancel := context.WithCancel(holder)
	cancel()
	_, err = m.Acquire(ctx, reqs("k"), false)
	require.ErrorIs(t, err, context.Canceled)
	cancelFirst()
	require.ErrorIs(t, <-errc, context.Canceled)
	assert.Zero(t, m.registered())
	require.NoError(t, other.Unlock(bg))
	assert.Empty(t, tab.held())
}

func TestReentrancy_LossReachesEveryGroupOfTheHolder(t *testing.T) {
	m, _ := newManager(t, "")
	ctx := forUnit(bg, "job")
	a, err := m.Acquire(ctx, reqs("k"), false)
	require.NoError(t, err)
	b, err := m.Acquire(ctx, reqs("k", "l"), false)
	require.NoError(t, err)
	assert.Len(t, groupOf(t, a).members[0].subs, 2)
	fakeOf(t, a, 0).lose()
	assert.True(t, closed(a.Lost()))
	assert.True(t, closed(b.Lost()))
	require.ErrorIs(t, b.Unlock(bg), lockstep.ErrLost)
	require.ErrorIs(t, a.Unlock(bg), lockstep.ErrLost)
}

func TestReentrancy_AfterALossFailsWithErrLost(t *testing.T) {
	m, tab := newManager(t, "")
	ctx := forUnit(context.Background(), "unit of work")
	l1, err := m.Acquire(ctx, reqs("a"), false)
	require.NoError(t, err)
	fakeOf(t, l1, 0).lose()
	l2, err := m.Acquire(ctx, reqs("a"), false)
	require.Nil(t, l2)
	require.ErrorIs(t, err, lockstep.ErrLost)
	require.Equal(t, []string{"a:X"}, tab.held(), "the first acquisition's reference is untouched")
	require.ErrorIs(t, l1.Unlock(context.Background()), lockstep.ErrLost)
	l3, err := m.Acquire(ctx, reqs("a"), false)
	require.NoError(t, err, "taken afresh once released")
	require.NoError(t, l3.Unlock(context.Background()))
}
