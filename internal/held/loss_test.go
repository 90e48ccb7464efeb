package held

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// C runs every source's deadline check itself: a deadline passed is seen at
// once, before any goroutine fired the signal; OnFire hooks run once, and a
// hook added after the fire runs at once.
func TestLoss_CRunsTheChecksAndFiresOnce(t *testing.T) {
	l := NewLoss()
	expired := false
	l.Watch(func() bool { return false })
	l.Watch(func() bool { return expired })
	fired := 0
	l.OnFire(func() { fired++ })
	require.False(t, closed(l.C()))
	require.False(t, l.Fired())
	expired = true
	require.True(t, closed(l.C()), "the passed deadline is seen by C")
	require.True(t, l.Fired())
	l.Fire()
	require.Equal(t, 1, fired, "hooks run once")
	late := false
	l.OnFire(func() { late = true })
	require.True(t, late, "a hook added after the fire runs at once")
}

// Fire closes the channel with no source at all (a census epoch ending).
func TestLoss_FireWithoutSources(t *testing.T) {
	l := NewLoss()
	require.False(t, l.Fired())
	l.Fire()
	require.True(t, closed(l.C()))
}
