package manager

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

func TestUnlockAll_ReleasesTheHoldersLocksOnly(t *testing.T) {
	m, tab := newManager(t, "/")
	type job struct{ n int }
	h, h2 := &job{1}, &job{2}
	ctx, ctx2 := forUnit(bg, h), forUnit(bg, h2)
	a1, err := m.Acquire(ctx, reqs("x/a"), false)
	require.NoError(t, err)
	_, err = m.Acquire(ctx, reqs("x/a", "y:S"), false)
	require.NoError(t, err)
	other, err := m.Acquire(ctx2, reqs("z"), false)
	require.NoError(t, err)
	require.NoError(t, m.UnlockAll(bg, h))
	assert.Equal(t, []string{"z:X"}, tab.held(), "only the other holder's lock is left")
	require.NoError(t, a1.Unlock(bg), "a handle released by UnlockAll unlocks as a no-op")
	require.NoError(t, m.UnlockAll(bg, h))
	assert.Empty(t, m.handles[h], "nothing of the holder is tracked")
	require.NoError(t, other.Unlock(bg))
	assert.Empty(t, m.handles, "a released handle is forgotten")
	assert.Empty(t, m.reg)
}

func TestUnlockAll_RefusesANilHolder(t *testing.T) {
	m, _ := newManager(t, "")
	require.ErrorIs(t, m.UnlockAll(bg, nil), lockstep.ErrInvalidConfig)
}
