package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// Each round of the deadlock scenario ends with exactly one ErrDeadlock,
// within the detector's bound (After + Every + four round trips), and the
// detector's requests are counted; the same seed gives the same figures.
func TestDeadlockScenario_OneVictimPerRoundWithinTheBound(t *testing.T) {
	det := lockstep.DeadlockDetection{After: 200 * time.Millisecond, Every: 200 * time.Millisecond}
	run := func() []deadlockRound {
		rs, err := runSimDeadlock(3, det, 500*time.Microsecond, 2*time.Millisecond, 1)
		require.NoError(t, err)
		require.Len(t, rs, 3)
		return rs
	}
	rs := run()
	for i, r := range rs {
		require.Equal(t, 1, r.victims, "round %d", i+1)
		require.GreaterOrEqual(t, r.latency, det.After, "round %d: reported before the wait was published", i+1)
		require.LessOrEqual(t, r.latency, det.After+det.Every+4*2*time.Millisecond, "round %d", i+1)
		require.Positive(t, r.waits, "round %d: no request to the wait table counted", i+1)
	}
	require.Equal(t, rs, run(), "one seed, one run")
}
