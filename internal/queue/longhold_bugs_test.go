//go:build lockstep_bugs

package queue

import (
	"testing"
	"testing/synctest"
)

// The negative control of TestFloor_LongHolderDoesNotPinTheFloor: with
// HolderKeepsQueueCell planted (a holder renews its queue cell for as long
// as it holds, as before), the holder's name pins every floor, and the
// reads of the last 300 acquisitions step over every tombstone since it
// took the id: more after 4,800 acquisitions than after 1,800, and far
// above the shipped test's bound.
func TestFloor_HolderKeepsQueueCellPinsTheFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		early, live := longHold(t, 1500, &TestingKnobs{HolderKeepsQueueCell: true})
		late, _ := longHold(t, 4500, &TestingKnobs{HolderKeepsQueueCell: true})
		t.Logf("planted: max tombstones per read in the last 300 acquisitions: after 1,800 %d, after 4,800 %d", early, late)
		if !live {
			t.Error("planted: the holder's queue cell is gone: the shipped test would not see the defect")
		}
		if early < 1500 || late < 4500 {
			t.Errorf("planted: reads stepped over %d and %d tombstones, want at least the acquisitions since the hold began: the shipped test would not see the defect", early, late)
		}
	})
}
