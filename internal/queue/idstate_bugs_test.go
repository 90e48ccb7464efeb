//go:build lockstep_bugs

package queue

import (
	"testing"
)

// The negative control of TestLocker_ReleasedIDsLeaveNoStateAfterTheTTL:
// with KeepIDState planted (per-id state kept for ever) the same scenario
// leaves a floor entry in the Locker and a live floor cell in the table for
// every id, so each of that test's checks fails.
func TestLocker_KeepIDStateKeepsEveryReleasedID(t *testing.T) {
	f := lockManyIDs(t, manyIDs(), &TestingKnobs{KeepIDState: true})
	t.Logf("KeepIDState planted, %d ids: after the TTL %d floors, %d hints, %d live cells, %d B retained above an empty Locker (%d B/id); the Locker itself held %d B (%d B/id)",
		f.n, f.floors, f.hints, f.liveCells, f.retained, f.retained/int64(f.n), f.lockerBytes, f.lockerBytes/int64(f.n))
	if f.floors < f.n {
		t.Errorf("planted: the Locker remembers %d floors, want all %d and the warm-up's: the check would not see the defect", f.floors, f.n)
	}
	if f.liveCells != f.n {
		t.Errorf("planted: %d live cells, want one floor cell per id (%d): the check would not see the defect", f.liveCells, f.n)
	}
	if f.retained <= 64<<10 {
		t.Errorf("planted: %d bytes retained, within the shipped test's limit: the check would not see the defect", f.retained)
	}
}
