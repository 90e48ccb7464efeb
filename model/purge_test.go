package model

import (
	"fmt"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
)

func TestStore_TombstoneKeptUntilGCGraceHasPassed(t *testing.T) {
	s, clock := newTestStore(WithGCGrace(10 * time.Second))
	mustPut(t, s, lockstep.Cell{Column: "c", Timestamp: 1})
	mustDelete(t, s, 2, "c") // localDeletionTime sec
	// Purged once ldt < now - gcGrace, i.e. from second sec+11 on.
	clock.Set((sec + 10) * 1_000_000)
	if got := s.Scan("t", "r", lockstep.Slice{}); len(got) != 1 || got[0].Kind != Tombstone {
		t.Fatalf("at ldt+gcGrace: %+v, want the tombstone still there", got)
	}
	// A rewrite at the tombstone's timestamp still loses.
	mustPut(t, s, lockstep.Cell{Column: "c", Timestamp: 2})
	if got := mustRead(t, s, lockstep.Slice{}); len(got) != 0 {
		t.Fatalf("rewrite at the tombstone's timestamp visible: %+v", got)
	}
	clock.Set((sec + 11) * 1_000_000)
	if got := s.Scan("t", "r", lockstep.Slice{}); len(got) != 0 {
		t.Fatalf("at ldt+gcGrace+1: %+v, want it purged", got)
	}
	if st := s.Stats(); st.Purged != 1 {
		t.Fatalf("Purged = %d, want 1", st.Purged)
	}
	// Once purged, the tombstone no longer shadows an old write: Cassandra's
	// zombie risk, modelled faithfully.
	mustPut(t, s, lockstep.Cell{Column: "c", Timestamp: 1})
	if got := mustRead(t, s, lockstep.Slice{}); len(got) != 1 {
		t.Fatalf("after purge: %+v, want the old write back", got)
	}
}

func TestStore_ExpiredCellBecomesTombstoneDatedAtItsCreation(t *testing.T) {
	s, clock := newTestStore(WithGCGrace(10 * time.Second))
	mustPut(t, s, lockstep.Cell{Column: "c", Value: []byte("v"), Timestamp: 5, TTL: 3 * time.Second})
	clock.Set((sec + 3) * 1_000_000) // expired
	got := s.Scan("t", "r", lockstep.Slice{})
	want := TombstoneCell("c", 5, sec)
	if len(got) != 1 || !cellsEqual(got[0], want) {
		t.Fatalf("expired cell after compaction: %+v, want %+v", got, want)
	}
	// Dated at its creation second, it is purged gcGrace after that.
	clock.Set((sec + 11) * 1_000_000)
	if got := s.Scan("t", "r", lockstep.Slice{}); len(got) != 0 {
		t.Fatalf("%+v, want it purged", got)
	}
}

func TestStore_ExpiredCellPurgedAtOnceWhenCreationIsPastGCGrace(t *testing.T) {
	s, clock := newTestStore(WithGCGrace(time.Second), WithAutoCompaction(false))
	mustPut(t, s, lockstep.Cell{Column: "c", Timestamp: 5, TTL: 3 * time.Second})
	clock.Set((sec + 3) * 1_000_000) // expired at sec+3; created at sec < sec+3-1
	if n := s.Compact(); n != 1 {
		t.Fatalf("Compact dropped %d cells, want 1", n)
	}
}

func TestStore_WithoutAutoCompactionOnlyCompactPurges(t *testing.T) {
	s, clock := newTestStore(WithGCGrace(0), WithAutoCompaction(false))
	mustPut(t, s, lockstep.Cell{Column: "a", Timestamp: 1, TTL: time.Second}, lockstep.Cell{Column: "b", Timestamp: 1})
	mustDelete(t, s, 2, "b")
	clock.Advance(5 * time.Second)
	got := s.Scan("t", "r", lockstep.Slice{})
	if len(got) != 2 || got[0].Kind != Expiring || got[1].Kind != Tombstone {
		t.Fatalf("before Compact: %+v, want the expired cell and the tombstone", got)
	}
	if n := s.Compact(); n != 2 {
		t.Fatalf("Compact dropped %d, want 2", n)
	}
	if got := s.Scan("t", "r", lockstep.Slice{}); len(got) != 0 {
		t.Fatalf("after Compact: %+v", got)
	}
}

// TestStore_ReadCostFlatAfterManyAcquisitions writes and deletes a fresh
// column per round, as a lock's queue does, and checks that tombstones do not
// pile up beyond gc grace.
func TestStore_ReadCostFlatAfterManyAcquisitions(t *testing.T) {
	s, clock := newTestStore(WithGCGrace(2 * time.Second))
	for i := range 1000 {
		col := fmt.Sprintf("%020d/owner", i)
		mustPut(t, s, lockstep.Cell{Column: col, Timestamp: int64(2 * i), TTL: 10 * time.Second})
		mustDelete(t, s, int64(2*i+1), col)
		clock.Advance(100 * time.Millisecond)
	}
	mustRead(t, s, lockstep.Slice{})
	if st := s.Stats(); st.LastReadTombstones > 40 {
		t.Fatalf("read stepped over %d tombstones, want at most ~gcGrace worth (30)", st.LastReadTombstones)
	}
}
