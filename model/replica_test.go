package model

import (
	"errors"
	"testing"

	"github.com/lockstep-go/lockstep"
)

func TestStore_ScanReturnsTombstonesAndStopsAfterLimitLiveCells(t *testing.T) {
	s, _ := newTestStore()
	cells := []StoredCell{
		LiveCell("a", []byte("1"), 1),
		TombstoneCell("b", 1, sec),
		ExpiringCell("c", []byte("3"), 1, 5, sec),
		ExpiringCell("d", []byte("4"), 1, 5, sec-10), // expired
		LiveCell("e", []byte("5"), 1),
	}
	if err := s.Apply("t", "r", cells...); err != nil {
		t.Fatal(err)
	}
	got := s.Scan("t", "r", lockstep.Slice{From: "b", Limit: 2})
	// The expired d is returned as stored: compaction (which ran before the
	// Apply, in this same second) has not turned it into a tombstone yet.
	want := []StoredCell{cells[1], cells[2], cells[3], cells[4]}
	if !cellSlicesEqual(got, want) {
		t.Fatalf("Scan = %+v\nwant %+v", got, want)
	}
	if st := s.Stats(); st.LastReadTombstones != 2 {
		t.Fatalf("scan counted %d tombstones, want 2", st.LastReadTombstones)
	}
	if got := s.Scan("t", "r", lockstep.Slice{Limit: 1}); len(got) != 1 || got[0].Column != "a" {
		t.Fatalf("Scan limit 1: %+v", got)
	}
}

func TestStore_ApplyMergesByReconcile(t *testing.T) {
	s, _ := newTestStore()
	must := func(cells ...StoredCell) {
		t.Helper()
		if err := s.Apply("t", "r", cells...); err != nil {
			t.Fatal(err)
		}
	}
	must(LiveCell("c", []byte("z"), 5))
	must(ExpiringCell("c", []byte("a"), 5, 100, sec))
	got := s.Scan("t", "r", lockstep.Slice{})
	if len(got) != 1 || got[0].Kind != Expiring {
		t.Fatalf("%+v, want the expiring cell", got)
	}
	must(TombstoneCell("c", 5, sec))
	if got := s.Scan("t", "r", lockstep.Slice{}); len(got) != 1 || got[0].Kind != Tombstone {
		t.Fatalf("%+v, want the tombstone", got)
	}
}

func TestStore_ApplyRefusesInvalidCellsAtomically(t *testing.T) {
	s, _ := newTestStore()
	for _, bad := range []StoredCell{
		{Column: "x", Kind: Expiring, TTL: 0, LocalDeletionTime: sec},
		{Column: "x", Kind: Expiring, TTL: MaxTTL + 1},
		{Column: "x", Kind: CellKind(9)},
	} {
		if err := s.Apply("t", "r", LiveCell("ok", nil, 1), bad); !errors.Is(err, ErrInvalidCell) {
			t.Errorf("Apply(%+v): %v, want ErrInvalidCell", bad, err)
		}
	}
	if got := s.Scan("t", "r", lockstep.Slice{}); len(got) != 0 {
		t.Fatalf("refused applies wrote %+v", got)
	}
}

func TestStore_ApplyCopiesAndNormalizes(t *testing.T) {
	s, _ := newTestStore()
	v := []byte("v")
	tomb := TombstoneCell("t", 1, sec)
	tomb.Value = []byte("ignored")
	if err := s.Apply("t", "r", LiveCell("l", v, 1), tomb); err != nil {
		t.Fatal(err)
	}
	v[0] = 'x'
	got := s.Scan("t", "r", lockstep.Slice{})
	if string(got[0].Value) != "v" || len(got[1].Value) != 0 {
		t.Fatalf("%+v", got)
	}
	got[0].Value[0] = 'y'
	if again := s.Scan("t", "r", lockstep.Slice{}); string(again[0].Value) != "v" {
		t.Fatalf("Scan shares memory: %+v", again)
	}
}

func TestCellKind_String(t *testing.T) {
	for k, want := range map[CellKind]string{Live: "live", Expiring: "expiring", Tombstone: "tombstone", 7: "CellKind(7)"} {
		if k.String() != want {
			t.Errorf("%d: %q, want %q", k, k.String(), want)
		}
	}
}
