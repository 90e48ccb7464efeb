package model

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
)

// newTestStore returns a store whose clock starts at the beginning of second
// sec.
func newTestStore(opts ...Option) (*Store, *ManualClock) {
	clock := NewManualClock(sec * 1_000_000)
	return New(clock, opts...), clock
}

func mustPut(t *testing.T, s *Store, cells ...lockstep.Cell) {
	t.Helper()
	if err := s.Put(t.Context(), "t", "r", cells...); err != nil {
		t.Fatal(err)
	}
}

func mustDelete(t *testing.T, s *Store, ts int64, cols ...string) {
	t.Helper()
	if err := s.Delete(t.Context(), "t", "r", ts, cols...); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, s *Store, sl lockstep.Slice) []lockstep.Cell {
	t.Helper()
	cells, err := s.Read(t.Context(), "t", "r", sl)
	if err != nil {
		t.Fatal(err)
	}
	return cells
}

func columns(cells []lockstep.Cell) string {
	out := ""
	for _, c := range cells {
		out += c.Column
	}
	return out
}

func TestStore_ExpiringCellDiesInItsExpirySecond(t *testing.T) {
	s, clock := newTestStore()
	clock.Advance(999 * time.Millisecond) // late in second sec: ldt is still sec+2
	mustPut(t, s, lockstep.Cell{Column: "c", Timestamp: 1, TTL: 2 * time.Second})
	clock.Set((sec+2)*1_000_000 - 1) // last microsecond of sec+1
	if got := mustRead(t, s, lockstep.Slice{}); len(got) != 1 || got[0].TTL != time.Second {
		t.Fatalf("in second sec+1: %+v, want the cell with 1s left", got)
	}
	clock.Advance(time.Microsecond) // second sec+2 == localDeletionTime
	if got := mustRead(t, s, lockstep.Slice{}); len(got) != 0 {
		t.Fatalf("in the expiry second: %+v, want nothing (isLive is now < ldt)", got)
	}
}

func TestStore_RemainingTTLIsRoundedUp(t *testing.T) {
	s, clock := newTestStore()
	mustPut(t, s, lockstep.Cell{Column: "c", Timestamp: 1, TTL: 3 * time.Second})
	for _, c := range []struct {
		at   time.Duration
		want time.Duration
	}{{0, 3 * time.Second}, {300 * time.Millisecond, 3 * time.Second}, {time.Second, 2 * time.Second}, {2900 * time.Millisecond, time.Second}} {
		clock.Set(sec*1_000_000 + c.at.Microseconds())
		got := mustRead(t, s, lockstep.Slice{})
		if len(got) != 1 || got[0].TTL != c.want {
			t.Fatalf("at +%v: %+v, want TTL %v", c.at, got, c.want)
		}
	}
}

func TestStore_ReadCountsTombstonesSteppedOver(t *testing.T) {
	s, clock := newTestStore()
	for _, col := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		mustPut(t, s, lockstep.Cell{Column: col, Timestamp: 1})
	}
	mustDelete(t, s, 2, "b", "c", "g")
	mustPut(t, s, lockstep.Cell{Column: "e", Timestamp: 2, TTL: time.Second})
	clock.Advance(time.Second) // e expired: a tombstone for reads
	s.ResetStats()
	for _, c := range []struct {
		sl        lockstep.Slice
		cols      string
		tombstone int64
	}{
		{lockstep.Slice{}, "adf", 4},
		{lockstep.Slice{Limit: 1}, "a", 0},
		{lockstep.Slice{Limit: 2}, "ad", 2},
		{lockstep.Slice{From: "b", To: "d"}, "", 2},
		{lockstep.Slice{From: "c", Limit: 2}, "df", 2},
		{lockstep.Slice{From: "f"}, "f", 1},
		{lockstep.Slice{From: "f", Limit: 1}, "f", 0},
		{lockstep.Slice{To: "a"}, "", 0},
	} {
		got := mustRead(t, s, c.sl)
		st := s.Stats()
		if columns(got) != c.cols || st.LastReadTombstones != c.tombstone {
			t.Errorf("slice %+v: %q with %d tombstones, want %q with %d", c.sl, columns(got), st.LastReadTombstones, c.cols, c.tombstone)
		}
	}
	st := s.Stats()
	if st.Reads != 8 || st.TombstonesScanned != 11 || st.MaxTombstonesPerRead != 4 {
		t.Fatalf("stats %+v, want 8 reads, 11 tombstones, max 4", st)
	}
}

func TestStore_StatsCountRequestsAndReset(t *testing.T) {
	s, _ := newTestStore()
	mustPut(t, s, lockstep.Cell{Column: "a", Timestamp: 1}, lockstep.Cell{Column: "b", Timestamp: 1})
	mustDelete(t, s, 2, "a", "b")
	mustRead(t, s, lockstep.Slice{})
	if err := s.Apply("t", "r", LiveCell("c", nil, 1)); err != nil {
		t.Fatal(err)
	}
	s.Scan("t", "r", lockstep.Slice{})
	want := Stats{Reads: 1, Puts: 1, Deletes: 1, Applies: 1, Scans: 1, TombstonesScanned: 4,
		MaxTombstonesPerRead: 2, LastReadTombstones: 2}
	if got := s.Stats(); got != want {
		t.Fatalf("stats %+v, want %+v", got, want)
	}
	s.ResetStats()
	if got := s.Stats(); got != (Stats{}) {
		t.Fatalf("after reset: %+v", got)
	}
}

func TestStore_InvalidTTLWritesNothing(t *testing.T) {
	s, _ := newTestStore()
	for _, ttl := range []time.Duration{-time.Second, time.Millisecond, 1500 * time.Millisecond, (MaxTTL + 1) * time.Second} {
		err := s.Put(t.Context(), "t", "r", lockstep.Cell{Column: "ok", Timestamp: 1}, lockstep.Cell{Column: "bad", Timestamp: 1, TTL: ttl})
		if !errors.Is(err, ErrInvalidCell) {
			t.Errorf("TTL %v: %v, want ErrInvalidCell", ttl, err)
		}
	}
	if got := mustRead(t, s, lockstep.Slice{}); len(got) != 0 {
		t.Fatalf("rejected puts wrote %+v", got)
	}
	if st := s.Stats(); st.Puts != 0 {
		t.Fatalf("rejected puts counted: %+v", st)
	}
	mustPut(t, s, lockstep.Cell{Column: "max", Timestamp: 1, TTL: MaxTTL * time.Second})
}

func TestStore_DoneContextChangesNothing(t *testing.T) {
	s, _ := newTestStore()
	mustPut(t, s, lockstep.Cell{Column: "a", Timestamp: 1})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Put(ctx, "t", "r", lockstep.Cell{Column: "b", Timestamp: 1}); err != context.Canceled {
		t.Errorf("Put: %v", err)
	}
	if err := s.Delete(ctx, "t", "r", 2, "a"); err != context.Canceled {
		t.Errorf("Delete: %v", err)
	}
	if _, err := s.Read(ctx, "t", "r", lockstep.Slice{}); err != context.Canceled {
		t.Errorf("Read: %v", err)
	}
	if got := columns(mustRead(t, s, lockstep.Slice{})); got != "a" {
		t.Fatalf("cells %q after cancelled requests, want a", got)
	}
}

func TestStore_NegativeLimitIsAnError(t *testing.T) {
	s, _ := newTestStore()
	if _, err := s.Read(t.Context(), "t", "r", lockstep.Slice{Limit: -1}); err == nil {
		t.Fatal("no error")
	}
}

func TestStore_ValuesAreCopiedInAndOut(t *testing.T) {
	s, _ := newTestStore()
	buf := []byte("abc")
	mustPut(t, s, lockstep.Cell{Column: "c", Value: buf, Timestamp: 1})
	buf[0] = 'x'
	got := mustRead(t, s, lockstep.Slice{})
	if string(got[0].Value) != "abc" {
		t.Fatalf("stored value changed with the caller's buffer: %q", got[0].Value)
	}
	got[0].Value[0] = 'y'
	if again := mustRead(t, s, lockstep.Slice{}); string(again[0].Value) != "abc" {
		t.Fatalf("stored value changed with a returned buffer: %q", again[0].Value)
	}
}

func TestStore_TablesAndPartitionsAreSeparate(t *testing.T) {
	s, _ := newTestStore()
	ctx := t.Context()
	for _, tr := range [][2]string{{"t1", "r"}, {"t2", "r"}, {"t1", "r2"}} {
		if err := s.Put(ctx, tr[0], tr[1], lockstep.Cell{Column: tr[0] + tr[1], Timestamp: 1}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tr := range [][2]string{{"t1", "r"}, {"t2", "r"}, {"t1", "r2"}} {
		got, err := s.Read(ctx, tr[0], tr[1], lockstep.Slice{})
		if err != nil || columns(got) != tr[0]+tr[1] {
			t.Fatalf("%v: %+v, %v", tr, got, err)
		}
	}
}

func TestStore_DuplicateColumnInOnePutReconciles(t *testing.T) {
	s, _ := newTestStore()
	mustPut(t, s, lockstep.Cell{Column: "c", Value: []byte("new"), Timestamp: 2}, lockstep.Cell{Column: "c", Value: []byte("old"), Timestamp: 1})
	if got := mustRead(t, s, lockstep.Slice{}); len(got) != 1 || string(got[0].Value) != "new" {
		t.Fatalf("%+v, want the newer version only", got)
	}
}

// TestStore_ConcurrentUse is for the race detector: writers and readers on
// shared and separate partitions, with the clock moving.
func TestStore_ConcurrentUse(t *testing.T) {
	s, clock := newTestStore(WithGCGrace(time.Second))
	ctx := t.Context()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			row := fmt.Sprint("r", g%2)
			for i := range 200 {
				col := fmt.Sprint("c", i%5)
				ts := int64(i)
				switch i % 4 {
				case 0:
					_ = s.Put(ctx, "t", row, lockstep.Cell{Column: col, Value: []byte{byte(g)}, Timestamp: ts, TTL: time.Second})
				case 1:
					_ = s.Delete(ctx, "t", row, ts, col)
				case 2:
					_, _ = s.Read(ctx, "t", row, lockstep.Slice{Limit: 2})
				case 3:
					clock.Advance(100 * time.Millisecond)
					s.Scan("t", row, lockstep.Slice{})
					_ = s.Stats()
				}
			}
		})
	}
	wg.Go(func() { s.Compact() })
	wg.Wait()
}

func TestNew_PanicsOnInvalidOptions(t *testing.T) {
	for name, f := range map[string]func(){
		"nil clock":           func() { New(nil) },
		"negative gc grace":   func() { New(NewManualClock(0), WithGCGrace(-time.Second)) },
		"fractional gc grace": func() { New(NewManualClock(0), WithGCGrace(1500*time.Millisecond)) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}
