//go:build lockstep_bugs

package migration

import (
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/bugs"
)

// With CensusUnbound planted, a lock whose census heartbeat went stale keeps
// Lost open: TestLocker_LostChecksTheLeaseAndCensusDeadlinesItself's
// CensusHeartbeat case must see it.
func TestLocker_CensusUnboundIsCaught(t *testing.T) {
	defer bugs.Plant(bugs.CensusUnbound)()
	if _, late := lostAround(t, lockstep.ModeCombined, 30*time.Second, 6*time.Second, 2*time.Second); late {
		t.Fatal("planted CensusUnbound not caught: Lost closed when the census went stale anyway")
	}
}
