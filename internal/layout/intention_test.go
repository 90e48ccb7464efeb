package layout

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/lockstep-go/lockstep"
)

// The ordering facts the intention range rests on (docs/algorithms.md,
// section 4.14): its columns sort after every other cell of a partition, so
// a read to the end (QueueSlice) returns them and IntentionlessSlice none of
// them, while IntentionlessSlice still returns every queue cell from the
// floor, every owner cell under OwnerPrefix and the floor cell.
func TestIntention_RangeSortsLastAndTheSlicesSplitAtIt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tm, owner := genTime(t, "t"), ownerID.Draw(t, "owner")
		q := QueueColumn(tm, owner)
		o := SlotColumn(OwnerColumn(processID.Draw(t, "process"), rapid.Uint64().Draw(t, "incarnation")), rapid.IntRange(0, 9).Draw(t, "slot"))
		i := IntentionColumn(o)
		h := HandedColumn(owner)
		if !(q < o && o < FloorColumn && FloorColumn < i && h < FloorColumn) {
			t.Fatalf("order broken: %q, %q, %q, %q (handed %q)", q, o, FloorColumn, i, h)
		}
		if !InIntentionRange(i) || InIntentionRange(o) || InIntentionRange(h) || InIntentionRange(FloorColumn) {
			t.Fatalf("InIntentionRange confuses %q, %q, %q", i, o, h)
		}
		floor := genTime(t, "floor")
		full, less := QueueSlice(floor), IntentionlessSlice(floor)
		in := func(s lockstep.Slice, col string) bool { return col >= s.From && (s.To == "" || col < s.To) }
		if !in(full, i) || in(less, i) {
			t.Fatalf("QueueSlice %+v / IntentionlessSlice %+v and the intention column %q", full, less, i)
		}
		for _, col := range []string{q, o, h, FloorColumn} {
			if in(full, col) != in(less, col) {
				t.Fatalf("IntentionlessSlice %+v and QueueSlice %+v disagree on %q", less, full, col)
			}
		}
		own := OwnSlice(i)
		if !in(own, i) || in(own, i+".1") || in(own, o) || own.Limit != 1 {
			t.Fatalf("OwnSlice(%q) = %+v", i, own)
		}
	})
}

// An intention column parses back to its Locker, with the access its value
// names; the range holds intention accesses only, and anything else there
// is refused as foreign by every reader that reads the range (claims in S,
// SIX and X): an intention claim, which skips the range, never sees such a
// cell, which is why no format may put one there (intention.go).
func TestIntention_ColumnsParseAndHoldIntentionAccessesOnly(t *testing.T) {
	col := IntentionColumn(SlotColumn(OwnerColumn("proc-1", 0xc4f5a58656eef510), 2))
	if col != "~~i/proc-1/c4f5a58656eef510.2" {
		t.Fatalf("IntentionColumn = %q", col)
	}
	if p, inc, err := ParseOwnerColumn(col); err != nil || p != "proc-1" || inc != "c4f5a58656eef510.2" {
		t.Fatalf("ParseOwnerColumn(%q) = %q, %q, %v", col, p, inc, err)
	}
	for _, a := range []lockstep.Access{lockstep.IntentShared, lockstep.IntentExclusive} {
		e, err := Parse(col, Value("proc-1.7", a, ""))
		if err != nil || e.Kind != Owner || e.Owner != "proc-1.7" || e.Process != "proc-1" || e.Access != a {
			t.Fatalf("Parse(%q, %v) = %+v, %v", col, a, e, err)
		}
	}
	for _, a := range []lockstep.Access{lockstep.Shared, lockstep.SharedIntentExclusive, lockstep.Exclusive} {
		if e, err := Parse(col, Value("proc-1.7", a, "")); err == nil {
			t.Errorf("Parse(%q, %v) = %+v: an access an intention claim conflicts with must be refused in the range", col, a, e)
		}
	}
	for _, c := range []string{"~~i/", "~~i/proc-1", "~~i//c4f5", "~~i/p/a/b", "~~ix/p/1"} {
		if e, err := Parse(c, Value("p.1", lockstep.IntentShared, "")); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", c, e)
		}
	}
	if !Intention(lockstep.IntentShared) || !Intention(lockstep.IntentExclusive) || Intention(lockstep.Shared) ||
		Intention(lockstep.SharedIntentExclusive) || Intention(lockstep.Exclusive) {
		t.Fatal("Intention misclassifies an access")
	}
	if IntentionColumn(FloorColumn) != FloorColumn {
		t.Fatal("IntentionColumn changed a column that is no owner column")
	}
}

// What the range is for: every intention access is compatible with every
// other, and S, SIX and X each conflict with some intention access, so
// exactly the intention claims may skip the range.
func TestIntention_OnlyIntentionClaimsMaySkipTheRange(t *testing.T) {
	all := []lockstep.Access{lockstep.IntentShared, lockstep.IntentExclusive, lockstep.Shared, lockstep.SharedIntentExclusive, lockstep.Exclusive}
	for _, a := range all {
		conflictsWithSome := false
		for _, b := range all {
			if Intention(b) && !a.Compatible(b) {
				conflictsWithSome = true
			}
		}
		if Intention(a) == conflictsWithSome {
			t.Errorf("%v: intention %v, conflicts with an intention access %v", a, Intention(a), conflictsWithSome)
		}
	}
}
