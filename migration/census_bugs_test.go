//go:build lockstep_bugs

package migration

import (
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
)

// With CensusUnbound planted, a lock whose census heartbeat went stale keeps
// Lost open: TestLocker_LostChecksTheLeaseAndCensusDeadlinesItself's
// CensusHeartbeat case must see it.
func TestLocker_CensusUnboundIsCaught(t *testing.T) {
	if _, late := lostAround(t, &TestingKnobs{CensusUnbound: true}, lockstep.ModeCombined, 30*time.Second, 6*time.Second, 2*time.Second); late {
		t.Fatal("planted CensusUnbound not caught: Lost closed when the census went stale anyway")
	}
}
