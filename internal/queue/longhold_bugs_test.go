//go:build lockstep_bugs

package queue

import (
	"testing"
	"testing/synctest"
)

// The negative control of TestFloor_LongHolderDoesNotPinTheFloor: with
// HolderKeepsQueueCell planted (a holder renews its queue cell for as long
// as it holds), the holder's name pins every floor, and the
// reads of the last 300 acquisitions step over every tombstone since it
// took the id: more after 3,300 acquisitions than in the first 300, and far
// above the shipped test's bound.
func TestFloor_HolderKeepsQueueCellPinsTheFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		early, live := longHold(t, 0, &TestingKnobs{HolderKeepsQueueCell: true})
		late, _ := longHold(t, 3000, &TestingKnobs{HolderKeepsQueueCell: true})
		t.Logf("planted: max tombstones per read: in the first 300 acquisitions %d, in 300 after 3,000 more %d", early, late)
		if !live {
			t.Error("planted: the holder's queue cell is gone: the shipped test would not see the defect")
		}
		if early < 300 || late < 3300 {
			t.Errorf("planted: reads stepped over %d and %d tombstones, want at least the acquisitions since the hold began: the shipped test would not see the defect", early, late)
		}
	})
}
