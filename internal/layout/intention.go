package layout

import (
	"strings"

	"github.com/lockstep-go/lockstep"
)

// The intention range (queuelock.Options.IntentionRange; docs/algorithms.md,
// section 4.14). A Locker with the option keeps the owner cells of its
// intention acquisitions (IS and IX) in columns of their own,
// "~~i/<process>/<incarnation>[.k]", which sort after the floor cell and so
// after everything else of a queue partition. Intention accesses are
// compatible with one another, so a claim in IS or IX never needs another
// intention holder's cell: it reads the partition up to the range
// (IntentionlessSlice) and its own cell alone (OwnSlice). A claim in S, SIX
// or X reads to the end of the partition, as every claim always did
// (QueueSlice), and so sees every cell of the range. A Locker that predates
// the range reads to the end too, and refuses its cells as foreign (they
// are neither a queue cell, an owner cell under "~o/" nor the floor): it
// fails its acquisition rather than miss a holder.
//
// A permanent rule of the format follows: nothing but IS and IX owner cells
// may ever sort at or after IntentionPrefix. An intention claim reads
// nothing there but its own cell, so it would neither count nor refuse any
// other cell placed there by a later format; Parse's refusal protects only
// the readers that read to the end.

// IntentionPrefix starts the column of every owner cell in the intention
// range. It sorts after FloorColumn ("~~i" > "~~f").
const IntentionPrefix = "~~i/"

// Intention reports whether a is an intention access, IS or IX: one whose
// owner cell may live in the intention range. Every intention access is
// compatible with every other, so a claim in one needs no cell of the range
// but its own; S, SIX and X each conflict with IX, and X with IS too.
func Intention(a lockstep.Access) bool {
	return a == lockstep.IntentShared || a == lockstep.IntentExclusive
}

// IntentionColumn returns the intention-range twin of a Locker's owner
// column (OwnerColumn, or a SlotColumn of it): "~o/<rest>" becomes
// "~~i/<rest>". Any other column is returned as it is.
func IntentionColumn(col string) string {
	if rest, ok := strings.CutPrefix(col, OwnerPrefix); ok {
		return IntentionPrefix + rest
	}
	return col
}

// InIntentionRange reports whether col is a column of the intention range.
func InIntentionRange(col string) bool { return strings.HasPrefix(col, IntentionPrefix) }

// IntentionlessSlice is QueueSlice without the intention range: every queue
// cell named at or after floor, every owner cell under OwnerPrefix and the
// floor cell, and no cell of the range. A claim in an intention access
// reads it, with OwnSlice for its own cell.
func IntentionlessSlice(floor int64) lockstep.Slice {
	return lockstep.Slice{From: Stamp(floor), To: IntentionPrefix}
}

// OwnSlice selects the one cell in column col.
func OwnSlice(col string) lockstep.Slice {
	return lockstep.Slice{From: col, To: col + "\x00", Limit: 1}
}
