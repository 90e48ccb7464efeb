package manager

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

func reentrant(t *testing.T, l lockstep.Lock) bool {
	t.Helper()
	r, ok := l.(interface{ Reentrant() bool })
	require.True(t, ok, "%T has no Reentrant", l)
	return r.Reentrant()
}

// A Lock is Reentrant only when it took nothing: every member, intention
// locks on ancestors included, was already the holder's and only counted.
// The first take of rx/2 beside a held rx/1 shares the intention lock on rx
// but takes rx/2.
func TestReentrant_OnlyWhenEveryMemberWasCounted(t *testing.T) {
	m, tab := newManager(t, "/")
	ctx := forUnit(bg, "unit")
	first, err := m.Acquire(ctx, reqs("rx/1"), false)
	require.NoError(t, err)
	assert.False(t, reentrant(t, first), "the first take")

	sibling, err := m.Acquire(ctx, reqs("rx/2"), false)
	require.NoError(t, err)
	assert.False(t, reentrant(t, sibling), "rx/2 was taken; only the intention lock on rx was counted")
	assert.Equal(t, []string{"rx/1:X", "rx/2:X", "rx:IX"}, tab.held())

	again, err := m.Acquire(ctx, reqs("rx/1"), false)
	require.NoError(t, err)
	assert.True(t, reentrant(t, again), "rx and rx/1 were both counted")

	group, err := m.Acquire(ctx, reqs("rx/2", "rx/1:S", "rx:IS"), false)
	require.NoError(t, err)
	assert.True(t, reentrant(t, group), "every member covered by what the holder holds")

	for _, l := range []lockstep.Lock{group, again, sibling, first} {
		require.NoError(t, l.Unlock(bg))
	}
	assert.Empty(t, tab.held())

	plain, err := m.Acquire(bg, reqs("rx/1"), false)
	require.NoError(t, err)
	assert.False(t, reentrant(t, plain), "no holder: nothing is counted")
	require.NoError(t, plain.Unlock(bg))
}

// A group's error names the member that stopped it, an ancestor's
// intention lock included, through errors.As with an interface target.
func TestMemberError_NamesTheMemberThatStoppedTheRun(t *testing.T) {
	m, tab := newManager(t, "/")
	holder, err := m.Acquire(bg, reqs("d"), false)
	require.NoError(t, err)

	_, err = m.Acquire(forUnit(bg, "unit"), reqs("a", "d/f"), true)
	require.ErrorIs(t, err, lockstep.ErrLocked)
	var me interface{ StoppedBy() lockstep.Request }
	require.True(t, errors.As(err, &me), "%v", err)
	assert.Equal(t, lockstep.Request{ID: "d", Access: lockstep.IntentExclusive}, me.StoppedBy(),
		"d/f's intention lock on d stopped it")
	assert.Contains(t, err.Error(), "member 2 of 3, d:IX, not taken (1 taken before it released)")

	tab.failTake["b"] = errStore
	_, err = m.Acquire(bg, reqs("b"), false)
	require.ErrorIs(t, err, errStore)
	require.True(t, errors.As(err, &me))
	assert.Equal(t, "b", me.StoppedBy().ID)
	require.NoError(t, holder.Unlock(bg))
}
