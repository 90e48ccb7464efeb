//go:build lockstep_bugs

package combined

import (
	"github.com/lockstep-go/lockstep/shadowlock"
	"testing"
)

// With LegacyLossUnwatched planted, the combined lock's loss signal carries
// only the queue lease, and the check above must see Lost() stay open.
func TestCombined_LegacyLossUnwatchedIsCaught(t *testing.T) {
	if legacyHalfLostCloses(t, &shadowlock.TestingKnobs{LegacyLossUnwatched: true}) {
		t.Fatal("planted LegacyLossUnwatched not caught: Lost() closed on the legacy lease's loss anyway")
	}
}
