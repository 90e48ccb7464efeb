//go:build lockstep_bugs

package combined

import (
	"github.com/lockstep-go/lockstep/shadowlock"
	"testing"
)

// With CombinedOverlapUnsafe planted, the overlapped round sends its shadow
// read and main re-read together, and the schedule above gives two holders.
func TestCombined_CombinedOverlapUnsafeIsCaught(t *testing.T) {
	if !overlapRace(t, &shadowlock.TestingKnobs{CombinedOverlapUnsafe: true}) {
		t.Fatal("planted CombinedOverlapUnsafe not caught: the combined process waited for the legacy holder anyway")
	}
}
