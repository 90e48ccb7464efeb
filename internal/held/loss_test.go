package held

import (
	"testing"
	"time"

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
	l.Watch(func() time.Duration { return time.Hour })
	l.Watch(func() time.Duration {
		if expired {
			return 0
		}
		return time.Minute
	})
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

// Remaining is the least time left of the sources; with none it is
// NoBound (only Fire ends such a Loss); a source at 0 fires the signal; a
// fired Loss has 0 left whatever its sources say.
func TestLoss_RemainingIsTheLeastOfItsSources(t *testing.T) {
	l := NewLoss()
	require.Equal(t, NoBound, l.Remaining(), "no source: no bound")
	left := 3 * time.Second
	l.Watch(func() time.Duration { return time.Hour })
	l.Watch(func() time.Duration { return left })
	require.Equal(t, 3*time.Second, l.Remaining())
	left = 0
	require.Equal(t, time.Duration(0), l.Remaining())
	require.True(t, l.Fired(), "a source at its deadline fires the signal")
	left = time.Minute
	require.Equal(t, time.Duration(0), l.Remaining(), "a fired Loss stays at 0")
}
