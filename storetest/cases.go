package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
)

// ttlCases check expiry and the TTL a read reports.
var ttlCases = []testCase{
	{"TTLCellExpires", func(t *testing.T, e *env) {
		// 2s, not 1s: Cassandra counts a TTL from the start of the second the
		// write arrived in (docs/algorithms.md §1.4), so a 1s cell written late
		// in its second can be gone before the read that follows the write
		// (seen once on three nodes); a 2s cell lives at least a second.
		e.put(t, expiring("c", "v", e.ts, 2*time.Second))
		e.wantValue(t, "c", "v", e.ts)
		e.h.Advance(t, 3500*time.Millisecond)
		e.wantAbsent(t, "c")
	}},
	{"CellWithoutTTLStays", func(t *testing.T, e *env) {
		e.put(t, live("stays", "v", e.ts), expiring("goes", "v", e.ts, time.Second))
		e.h.Advance(t, 2500*time.Millisecond)
		if c := e.wantValue(t, "stays", "v", e.ts); c.TTL != 0 {
			t.Fatalf("TTL of a cell written without one: %v, want 0", c.TTL)
		}
		e.wantAbsent(t, "goes")
	}},
	{"ReadReportsRemainingTTL", func(t *testing.T, e *env) {
		e.put(t, expiring("c", "v", e.ts, 3*time.Second))
		wantTTL := func(lo, hi time.Duration) {
			t.Helper()
			c := e.wantValue(t, "c", "v", e.ts)
			if c.TTL < lo || c.TTL > hi || c.TTL%time.Second != 0 {
				t.Fatalf("remaining TTL %v, want whole seconds in [%v, %v]", c.TTL, lo, hi)
			}
		}
		wantTTL(2*time.Second, 3*time.Second)
		e.h.Advance(t, time.Second)
		wantTTL(time.Second, 2*time.Second)
	}},
}

// sliceCases check column order and slices.
var sliceCases = []testCase{
	{"SliceHonoursFromToAndLimitAndSkipsTombstones", func(t *testing.T, e *env) {
		for _, col := range []string{"a", "b", "c", "d", "e", "f"} {
			e.put(t, live(col, col, e.ts))
		}
		e.del(t, e.ts+1, "b", "d")
		for _, c := range []struct {
			s    lockstep.Slice
			want []string
		}{
			{lockstep.Slice{}, []string{"a", "c", "e", "f"}},
			{lockstep.Slice{From: "c"}, []string{"c", "e", "f"}},
			{lockstep.Slice{From: "b"}, []string{"c", "e", "f"}},
			{lockstep.Slice{From: "bb"}, []string{"c", "e", "f"}},
			{lockstep.Slice{From: "c", To: "e"}, []string{"c"}},
			{lockstep.Slice{To: "c"}, []string{"a"}},
			{lockstep.Slice{Limit: 2}, []string{"a", "c"}},
			{lockstep.Slice{From: "b", Limit: 2}, []string{"c", "e"}},
			{lockstep.Slice{From: "a", To: "f", Limit: 10}, []string{"a", "c", "e"}},
			{lockstep.Slice{From: "b", To: "c"}, nil},
			{lockstep.Slice{From: "g"}, nil},
		} {
			wantColumns(t, fmt.Sprintf("slice %+v", c.s), e.read(t, c.s), c.want...)
		}
	}},
	{"ColumnsOrderBytewise", func(t *testing.T, e *env) {
		want := []string{"10", "9", "A", "Z", "a", "z", "~", "é"}
		for _, i := range rand.Perm(len(want)) {
			e.put(t, live(want[i], "v", e.ts))
		}
		wantColumns(t, "read", e.read(t, lockstep.Slice{}), want...)
	}},
	{"TimePrefixedColumnsOrderByTimeThenOwner", func(t *testing.T, e *env) {
		var want []string
		for _, us := range []int64{9, 10, 999_999, 1_000_000, e.ts - 1, e.ts, e.ts + 1_000_000} {
			for _, owner := range []string{"0f3a", "a1", "b"} {
				want = append(want, fmt.Sprintf("%020d/%s", us, owner))
			}
		}
		for _, i := range rand.Perm(len(want)) {
			e.put(t, live(want[i], "v", e.ts))
		}
		wantColumns(t, "read", e.read(t, lockstep.Slice{}), want...)
		from := fmt.Sprintf("%020d", e.ts)
		wantColumns(t, "from now", e.read(t, lockstep.Slice{From: from, Limit: 2}), want[len(want)-6:len(want)-4]...)
	}},
}

// requestCases check requests as a whole: batching, absence, empty values,
// invalid input and contexts.
var requestCases = []testCase{
	{"MultiCellPutAndMultiColumnDelete", func(t *testing.T, e *env) {
		e.put(t, live("a", "1", e.ts), expiring("b", "2", e.ts+1, 3*time.Second), live("c", "3", e.ts+2))
		e.wantValue(t, "a", "1", e.ts)
		e.wantValue(t, "b", "2", e.ts+1)
		e.wantValue(t, "c", "3", e.ts+2)
		e.del(t, e.ts+3, "a", "c")
		wantColumns(t, "after delete", e.read(t, lockstep.Slice{}), "b")
	}},
	{"AbsentPartitionReadsEmpty", func(t *testing.T, e *env) {
		wantColumns(t, "absent partition", e.read(t, lockstep.Slice{}))
		wantColumns(t, "absent partition, limited", e.read(t, lockstep.Slice{From: "a", To: "z", Limit: 1}))
	}},
	{"EmptyValueRoundTrips", func(t *testing.T, e *env) {
		e.put(t, lockstep.Cell{Column: "empty", Value: []byte{}, Timestamp: e.ts},
			lockstep.Cell{Column: "nil", Timestamp: e.ts})
		wantColumns(t, "read", e.read(t, lockstep.Slice{}), "empty", "nil")
		for _, col := range []string{"empty", "nil"} {
			e.wantValue(t, col, "", e.ts)
		}
		e.wantAbsent(t, "never-written")
	}},
	{"InvalidTTLIsRejectedAndWritesNothing", func(t *testing.T, e *env) {
		for _, ttl := range []time.Duration{-time.Second, 1500 * time.Millisecond, time.Millisecond} {
			err := e.h.Store.Put(e.ctx, e.h.Table, e.row, live("valid", "v", e.ts), expiring("invalid", "v", e.ts, ttl))
			if err == nil {
				t.Fatalf("Put with TTL %v: no error", ttl)
			}
		}
		wantColumns(t, "after rejected puts", e.read(t, lockstep.Slice{}))
	}},
	{"DoneContextFailsWithItsError", func(t *testing.T, e *env) {
		e.put(t, live("kept", "v", e.ts))
		cancelled, cancel := context.WithCancel(e.ctx)
		cancel()
		expired, cancel2 := context.WithDeadline(e.ctx, time.Now().Add(-time.Second))
		defer cancel2()
		for _, ctx := range []context.Context{cancelled, expired} {
			check := func(op string, err error) {
				t.Helper()
				if !errors.Is(err, ctx.Err()) {
					t.Fatalf("%s with a done ctx: %v, want an error wrapping %v", op, err, ctx.Err())
				}
			}
			check("Put", e.h.Store.Put(ctx, e.h.Table, e.row, live("new", "v", e.ts)))
			check("Delete", e.h.Store.Delete(ctx, e.h.Table, e.row, e.ts+1, "kept"))
			_, err := e.h.Store.Read(ctx, e.h.Table, e.row, lockstep.Slice{})
			check("Read", err)
		}
		wantColumns(t, "after cancelled requests", e.read(t, lockstep.Slice{}), "kept")
	}},
}

// mutatorCases check lockstep.Mutator, for a Store that implements it (a
// Store without it passes them, skipped): one request writes tombstones and
// cells of one partition, each cell with its own timestamp, the tombstones
// with theirs.
var mutatorCases = []testCase{
	{"PutDeleteWritesAndDeletesInOneRequest", func(t *testing.T, e *env) {
		m, ok := e.h.Store.(lockstep.Mutator)
		if !ok {
			t.Skip("the store is not a lockstep.Mutator")
		}
		e.put(t, live("gone", "v", e.ts), live("old", "v", e.ts+5))
		if err := m.PutDelete(e.ctx, e.h.Table, e.row, e.ts+2, []string{"gone", "old"},
			expiring("new", "w", e.ts+1, 10*time.Second)); err != nil {
			t.Fatal(err)
		}
		e.wantAbsent(t, "gone")            // its tombstone is newer
		e.wantValue(t, "old", "v", e.ts+5) // a tombstone older than the cell loses
		e.wantValue(t, "new", "w", e.ts+1) // the cell's own timestamp, below the tombstones'
		if err := m.PutDelete(e.ctx, e.h.Table, e.row, e.ts+3, nil, lockstep.Cell{Column: "bad", Value: []byte("x"), Timestamp: e.ts, TTL: 1500 * time.Millisecond}); err == nil {
			t.Fatal("PutDelete accepted a TTL that is not whole seconds")
		}
		e.wantAbsent(t, "bad")
	}},
}
