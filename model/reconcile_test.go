package model

import (
	"bytes"
	"testing"

	"github.com/lockstep-go/lockstep"
	"pgregory.net/rapid"
)

const sec = 1_700_000_000 // a replica second used by the tests

func TestReconcile_HigherTimestampWins(t *testing.T) {
	older := []StoredCell{
		LiveCell("c", []byte("z"), 10),
		ExpiringCell("c", []byte("z"), 10, 100, sec),
		TombstoneCell("c", 10, sec+50),
	}
	newer := []StoredCell{
		LiveCell("c", []byte("a"), 11),
		ExpiringCell("c", []byte("a"), 11, 1, sec),
		TombstoneCell("c", 11, sec),
	}
	for _, o := range older {
		for _, n := range newer {
			for _, got := range []StoredCell{Reconcile(o, n), Reconcile(n, o)} {
				if !cellsEqual(got, n) {
					t.Errorf("Reconcile(%v, %v) = %v, want the newer", o, n, got)
				}
			}
		}
	}
}

func TestReconcile_EqualTimestampTieBreaks(t *testing.T) {
	for _, c := range []struct {
		name          string
		winner, loser StoredCell
	}{
		{"TombstoneBeatsLive", TombstoneCell("c", 5, sec), LiveCell("c", []byte("z"), 5)},
		{"TombstoneBeatsExpiring", TombstoneCell("c", 5, sec), ExpiringCell("c", []byte("z"), 5, 100, sec)},
		{"TombstoneBeatsExpiringWithLaterDeletionTime", TombstoneCell("c", 5, sec), ExpiringCell("c", nil, 5, 100, sec+1)},
		{"ExpiringBeatsLive", ExpiringCell("c", []byte("a"), 5, 1, sec), LiveCell("c", []byte("z"), 5)},
		{"ExpiredCellBeatsLive", ExpiringCell("c", []byte("a"), 5, 1, 0), LiveCell("c", []byte("z"), 5)},
		{"LaterExpiryWins", ExpiringCell("c", []byte("a"), 5, 2, sec), ExpiringCell("c", []byte("z"), 5, 1, sec)},
		{"LaterTombstoneWins", TombstoneCell("c", 5, sec+1), TombstoneCell("c", 5, sec)},
		{"LargerValueWins", LiveCell("c", []byte("b"), 5), LiveCell("c", []byte("a"), 5)},
		{"LongerValueWins", LiveCell("c", []byte("ab"), 5), LiveCell("c", []byte("a"), 5)},
		{"ValuesCompareUnsigned", LiveCell("c", []byte{0x80}, 5), LiveCell("c", []byte{0x7f}, 5)},
		{"EqualExpiryLargerValueWins", ExpiringCell("c", []byte("b"), 5, 2, sec), ExpiringCell("c", []byte("a"), 5, 1, sec+1)},
		{"EqualEverythingSmallerTTLWins", ExpiringCell("c", []byte("a"), 5, 1, sec+1), ExpiringCell("c", []byte("a"), 5, 2, sec)},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, got := range []StoredCell{Reconcile(c.winner, c.loser), Reconcile(c.loser, c.winner)} {
				if !cellsEqual(got, c.winner) {
					t.Errorf("got %+v, want %+v", got, c.winner)
				}
			}
		})
	}
}

func TestReconcile_ReturnsACopy(t *testing.T) {
	a := LiveCell("c", []byte("a"), 1)
	got := Reconcile(a, LiveCell("c", []byte("a"), 0))
	got.Value[0] = 'x'
	if string(a.Value) != "a" {
		t.Fatalf("Reconcile shares memory with its argument")
	}
}

// genCell draws a version of column "c" from a small space, so that ties on
// every field are frequent.
func genCell(t *rapid.T, label string) StoredCell {
	ts := rapid.Int64Range(0, 3).Draw(t, label+".ts")
	now := int64(sec) + rapid.Int64Range(0, 3).Draw(t, label+".now")
	val := rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1, 0x7f, 0x80, 0xff}), 0, 2).Draw(t, label+".value")
	switch rapid.IntRange(0, 2).Draw(t, label+".kind") {
	case 0:
		return LiveCell("c", val, ts)
	case 1:
		return ExpiringCell("c", val, ts, rapid.Int64Range(1, 3).Draw(t, label+".ttl"), now)
	}
	return TombstoneCell("c", ts, now)
}

func TestReconcile_CommutativeAndAssociative(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := genCell(t, "a").normalized(), genCell(t, "b").normalized(), genCell(t, "c").normalized()
		if ab, ba := Reconcile(a, b), Reconcile(b, a); !cellsEqual(ab, ba) {
			t.Fatalf("not commutative: %+v vs %+v", ab, ba)
		}
		if l, r := Reconcile(Reconcile(a, b), c), Reconcile(a, Reconcile(b, c)); !cellsEqual(l, r) {
			t.Fatalf("not associative: %+v vs %+v", l, r)
		}
		if aa := Reconcile(a, a); !cellsEqual(aa, a) {
			t.Fatalf("not idempotent: %+v vs %+v", aa, a)
		}
	})
}

// TestStore_ApplyOrderDoesNotMatter applies the same set of cells to several
// columns in two random orders, split into random requests, and expects the
// same stored state and the same reads.
func TestStore_ApplyOrderDoesNotMatter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cols := []string{"a", "b", "c"}
		var cells []StoredCell
		for range rapid.IntRange(1, 12).Draw(t, "n") {
			c := genCell(t, "cell")
			c.Column = rapid.SampledFrom(cols).Draw(t, "column")
			cells = append(cells, c)
		}
		apply := func(label string) (*Store, *ManualClock) {
			clock := NewManualClock(sec * 1_000_000)
			s := New(clock, WithAutoCompaction(false))
			order := rapid.Permutation(cells).Draw(t, label)
			for len(order) > 0 {
				n := rapid.IntRange(1, len(order)).Draw(t, label+".batch")
				if err := s.Apply("t", "r", order[:n]...); err != nil {
					t.Fatal(err)
				}
				order = order[n:]
			}
			return s, clock
		}
		s1, c1 := apply("order1")
		s2, c2 := apply("order2")
		for _, step := range []int64{0, 1, 2, 3, 4} {
			c1.Set((sec + step) * 1_000_000)
			c2.Set((sec + step) * 1_000_000)
			if x, y := s1.Scan("t", "r", lockstep.Slice{}), s2.Scan("t", "r", lockstep.Slice{}); !cellSlicesEqual(x, y) {
				t.Fatalf("at +%ds: stored state depends on order:\n%+v\n%+v", step, x, y)
			}
			r1, _ := s1.Read(t.Context(), "t", "r", lockstep.Slice{})
			r2, _ := s2.Read(t.Context(), "t", "r", lockstep.Slice{})
			if len(r1) != len(r2) {
				t.Fatalf("at +%ds: reads differ: %+v vs %+v", step, r1, r2)
			}
		}
	})
}

func cellsEqual(a, b StoredCell) bool {
	return a.Column == b.Column && bytes.Equal(a.Value, b.Value) && a.Timestamp == b.Timestamp &&
		a.Kind == b.Kind && a.TTL == b.TTL && a.LocalDeletionTime == b.LocalDeletionTime
}

func cellSlicesEqual(a, b []StoredCell) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !cellsEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}
