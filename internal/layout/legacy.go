package layout

import (
	"time"

	"github.com/lockstep-go/lockstep"
)

// LegacyColumn names owner's cell in a legacy row (main or shadow): the
// owner id itself. It is what a legacy delete names.
func LegacyColumn(owner string) string { return owner }

// LegacyCell is owner's cell in a legacy row, written at timestamp ts with
// the given TTL: column = owner id, value empty (non-nil, as the legacy code
// writes it).
func LegacyCell(owner string, ts int64, ttl time.Duration) lockstep.Cell {
	return lockstep.Cell{Column: LegacyColumn(owner), Value: []byte{}, Timestamp: ts, TTL: ttl}
}

// LegacyOwner returns the owner id a legacy cell stands for: its column. Any
// cell of a legacy row is some owner's (doc.go).
func LegacyOwner(c lockstep.Cell) string { return c.Column }

// LegacyOnly reports listing 4's test on a legacy row read in full: it holds
// exactly one cell, and that cell is owner's.
func LegacyOnly(cells []lockstep.Cell, owner string) bool {
	return len(cells) == 1 && LegacyOwner(cells[0]) == owner
}

// LegacyRow selects a whole legacy row: listing 4 reads it in full.
func LegacyRow() lockstep.Slice { return lockstep.Slice{} }
