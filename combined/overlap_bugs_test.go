//go:build lockstep_bugs

package combined

import (
	"testing"

	"github.com/lockstep-go/lockstep/internal/bugs"
)

// With CombinedOverlapUnsafe planted, the overlapped round sends its shadow
// read and main re-read together, and the schedule above gives two holders.
func TestCombined_CombinedOverlapUnsafeIsCaught(t *testing.T) {
	defer bugs.Plant(bugs.CombinedOverlapUnsafe)()
	if !overlapRace(t) {
		t.Fatal("planted CombinedOverlapUnsafe not caught: the combined process waited for the legacy holder anyway")
	}
}
