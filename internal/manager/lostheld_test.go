package manager

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// A holder whose lock on r was lost asks for r again, alone or in a group:
// the call fails with ErrLost, saying that the earlier Lock (named by its
// Owner()) was lost and must be unlocked first, and holds nothing. Asking
// again before that fails the same way; after the earlier Lock's Unlock
// (which reports the loss), the same call succeeds.
func TestReentrancy_AfterALostLockTheErrorSaysToUnlockIt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		again []lockstep.Request
		what  string
		retry string
	}{
		{"one id", reqs("r"), "lockstep: lock r:X: ", "then take r:X again"},
		{"group", reqs("a", "r"), "lockstep: lock group [a:X, r:X]: member 2 of 2, r:X: ", "then take the group again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, tab := newManager(t, "")
			holder := forUnit(bg, "job")
			first, err := m.Acquire(holder, reqs("r"), false)
			require.NoError(t, err)
			fakeOf(t, first, 0).lose()

			for range 2 { // the advice does not change until it is followed
				l, err := m.Acquire(holder, tc.again, false)
				require.Nil(t, l)
				require.ErrorIs(t, err, lockstep.ErrLost)
				msg := err.Error()
				assert.Contains(t, msg, tc.what)
				assert.Contains(t, msg, fmt.Sprintf(`already holds "r" through an earlier Lock (Owner() %s) whose lease was lost`, first.Owner()))
				assert.Contains(t, msg, `unlock that earlier Lock first (its Unlock reports the loss and releases "r"), `+tc.retry)
				assert.NotContains(t, msg, "was lost while the members after it were taken")
				assert.Equal(t, []string{"r:X"}, tab.held(), "nothing held by the call: only the earlier Lock's r")
			}

			require.ErrorIs(t, first.Unlock(bg), lockstep.ErrLost, "the earlier Lock's Unlock reports the loss")
			l, err := m.Acquire(holder, tc.again, false)
			require.NoError(t, err, "following the advice works")
			require.NoError(t, l.Unlock(bg))
			assert.Empty(t, tab.held())
			assert.Zero(t, m.registered())
		})
	}
}

// A holding lost after the run counted it, before the run completed, gets
// the same advice.
func TestReentrancy_HoldingLostWhileTheGroupIsTakenSaysToUnlockIt(t *testing.T) {
	m, tab := newManager(t, "")
	holder := forUnit(bg, "job")
	first, err := m.Acquire(holder, reqs("a"), false)
	require.NoError(t, err)
	loseAfterTaking(tab, "b", "a") // a was counted; it is lost as b is taken
	l, err := m.Acquire(holder, reqs("a", "b"), false)
	require.Nil(t, l)
	require.ErrorIs(t, err, lockstep.ErrLost)
	assert.Contains(t, err.Error(), "lockstep: lock group [a:X, b:X]: member 1 of 2, a:X: ")
	assert.Contains(t, err.Error(), "unlock that earlier Lock first")
	assert.Equal(t, []string{"a:X"}, tab.held(), "b released")
	tab.afterTake = nil
	require.ErrorIs(t, first.Unlock(bg), lockstep.ErrLost)
	l, err = m.Acquire(holder, reqs("a", "b"), false)
	require.NoError(t, err)
	require.NoError(t, l.Unlock(bg))
}
