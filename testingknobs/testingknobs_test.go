package testingknobs_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/testingknobs"
)

// The window is the Lockers' (TTL − 1s − skew)/2, and TTL/2 with the
// planted HalfTTLLease, which ignores the second and the skew.
func TestLeaseWindow_IsTheLockersAndMovesWithTheKnob(t *testing.T) {
	require.Equal(t, 14*time.Second, testingknobs.LeaseWindow(30*time.Second, time.Second, nil))
	require.Equal(t, 14*time.Second, testingknobs.LeaseWindow(30*time.Second, time.Second, &testingknobs.Lease{}))
	require.Equal(t, 15*time.Second, testingknobs.LeaseWindow(30*time.Second, time.Second, &testingknobs.Lease{HalfTTLLease: true}))
}

// The planted clock reports the wall clock (µs since the epoch) as elapsed time, where a
// clock.Local counts from its first use.
func TestWallClockLease_ElapsedIsTheWallClock(t *testing.T) {
	c := testingknobs.WallClockLease(&clock.Local{})
	before := time.Now().UnixMicro()
	e := c.Elapsed()
	require.GreaterOrEqual(t, e, before)
	require.LessOrEqual(t, e, time.Now().UnixMicro())
}
