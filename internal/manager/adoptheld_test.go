package manager

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// An adopted group may share a member the holder already holds (siblings
// rx/1 and rx/2 share the intention lock on rx): the Locker adopts nothing
// for it (a nil lock) and AdoptedFor counts the holder's member, which is
// released only with the last group that holds it.
func TestAdoptedFor_CountsAMemberTheHolderHolds(t *testing.T) {
	m, tab := newManager(t, "/")
	holder := "identity"
	first, err := m.Acquire(forUnit(bg, holder), reqs("rx/1"), false)
	require.NoError(t, err)
	rx := fakeOf(t, first, 0)
	require.Equal(t, "rx", rx.id)
	assert.True(t, m.HeldFor(holder, "rx", lockstep.IntentExclusive, rx.owner))
	assert.False(t, m.HeldFor(holder, "rx", lockstep.IntentExclusive, "another-owner"), "another acquisition of rx")
	assert.False(t, m.HeldFor(holder, "rx", lockstep.Exclusive, rx.owner), "an access the member does not cover")
	assert.False(t, m.HeldFor("another-holder", "rx", lockstep.IntentExclusive, rx.owner))

	rx2, err := tab.one(bg, "rx/2", lockstep.Exclusive, true)
	require.NoError(t, err)
	g, err := m.AdoptedFor(holder, "rx/2", reqs("rx:IX", "rx/2"), []lockstep.Lock{nil, rx2})
	require.NoError(t, err)
	assert.False(t, g.(interface{ Reentrant() bool }).Reentrant(), "it adopted rx/2")
	assert.Equal(t, []string{"rx/1:X", "rx/2:X", "rx:IX"}, tab.held(), "rx is held once")

	require.NoError(t, first.Unlock(bg))
	assert.Equal(t, []string{"rx/2:X", "rx:IX"}, tab.held(), "the adopted group still counts rx")
	require.NoError(t, g.Unlock(bg))
	assert.Empty(t, tab.held())
	assert.Zero(t, m.registered())
}

// A nil lock for an id the holder does not hold is refused with
// lockstep.ErrReleased, and nothing is registered or counted.
func TestAdoptedFor_RefusesToCountAMemberTheHolderDoesNotHold(t *testing.T) {
	m, tab := newManager(t, "/")
	other, err := m.Acquire(forUnit(bg, "other"), reqs("rx/1"), false)
	require.NoError(t, err)
	rx3, err := tab.one(bg, "rx/3", lockstep.Exclusive, true)
	require.NoError(t, err)
	_, err = m.AdoptedFor("identity", "rx/3", reqs("rx:IX", "rx/3"), []lockstep.Lock{nil, rx3})
	require.ErrorIs(t, err, lockstep.ErrReleased)
	assert.Equal(t, 2, m.registered(), "only the other holder's rx and rx/1")
	require.NoError(t, rx3.Unlock(bg))
	require.NoError(t, other.Unlock(bg))
	assert.Zero(t, m.registered())
}
