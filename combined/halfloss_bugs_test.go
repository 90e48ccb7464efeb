//go:build lockstep_bugs

package combined

import (
	"testing"

	"github.com/lockstep-go/lockstep/internal/bugs"
)

// With LegacyLossUnwatched planted, the combined lock's loss signal carries
// only the queue lease, and the check above must see Lost() stay open.
func TestCombined_LegacyLossUnwatchedIsCaught(t *testing.T) {
	defer bugs.Plant(bugs.LegacyLossUnwatched)()
	if legacyHalfLostCloses(t) {
		t.Fatal("planted LegacyLossUnwatched not caught: Lost() closed on the legacy lease's loss anyway")
	}
}
