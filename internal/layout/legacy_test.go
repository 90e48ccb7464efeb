package layout

import (
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"pgregory.net/rapid"
)

// The frozen legacy cell, to the byte (shadowlock's
// TestShadowLock_WritesTheKnownBytes pins it on the wire).
func TestLegacy_BuildsTheFrozenCell(t *testing.T) {
	c := LegacyCell("p1.1", 946684800000000, 6*time.Second)
	if c.Column != "p1.1" || c.Value == nil || len(c.Value) != 0 || c.Timestamp != 946684800000000 || c.TTL != 6*time.Second {
		t.Fatalf("LegacyCell = %#v, want column = owner, empty non-nil value", c)
	}
	if LegacyColumn("p1.1") != "p1.1" || LegacyOwner(c) != "p1.1" {
		t.Fatalf("LegacyColumn/LegacyOwner disagree with the cell %q", c.Column)
	}
	if s := LegacyRow(); s != (lockstep.Slice{}) {
		t.Fatalf("LegacyRow = %+v, want the whole row", s)
	}
}

// Listing 4's test: exactly one cell, and it is ours. Any other cell — a
// legacy peer's owner id in whatever shape its code chose — counts.
func TestLegacy_OnlyIsListing4sTest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		owners := rapid.SliceOfNDistinct(rapid.String(), 0, 4, rapid.ID[string]).Draw(t, "owners")
		cells := make([]lockstep.Cell, len(owners))
		for i, o := range owners {
			cells[i] = LegacyCell(o, int64(i), time.Second)
		}
		for i, c := range cells {
			if LegacyOwner(c) != owners[i] {
				t.Fatalf("LegacyOwner(%+v) = %q, want %q", c, LegacyOwner(c), owners[i])
			}
		}
		me := rapid.SampledFrom(append(owners, "me")).Draw(t, "me")
		want := len(owners) == 1 && owners[0] == me
		if LegacyOnly(cells, me) != want {
			t.Fatalf("LegacyOnly(%q, %q) = %v, want %v", owners, me, !want, want)
		}
	})
}
