//go:build lockstep_bugs

package queue

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/internal/cohort"
)

// The planted control HandOnShared (a shared grant is still handed to the
// local line) is caught by the same run.
func TestQueueLock_ShareOfALocalGrantCatchesHandOnShared(t *testing.T) {
	err := shareOfAGrant(t, &cohort.TestingKnobs{HandOnShared: true})
	require.Error(t, err, "HandOnShared planted, yet the waiter stayed out")
	t.Logf("caught: %v", err)
}
