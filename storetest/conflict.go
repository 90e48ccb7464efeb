package storetest

import (
	"slices"
	"testing"
	"time"
)

// cases is every conformance case, in the order they are run.
var cases = slices.Concat(conflictCases, ttlCases, sliceCases, requestCases, mutatorCases)

// conflictCases check how concurrent versions of one cell resolve: the
// rules of Cells.resolveRegular, each in both arrival orders.
var conflictCases = []testCase{
	{"HigherTimestampWinsRegardlessOfArrivalOrder", func(t *testing.T, e *env) {
		e.put(t, live("newer-first", "new", e.ts+2))
		e.put(t, live("newer-first", "old", e.ts+1))
		e.wantValue(t, "newer-first", "new", e.ts+2)

		e.put(t, live("older-first", "old", e.ts+1))
		e.put(t, live("older-first", "new", e.ts+2))
		e.wantValue(t, "older-first", "new", e.ts+2)

		// A later write beats an older tombstone that arrives after it.
		e.put(t, live("late-tombstone", "v", e.ts+2))
		e.del(t, e.ts+1, "late-tombstone")
		e.wantValue(t, "late-tombstone", "v", e.ts+2)

		// A later tombstone beats an older write that arrives after it.
		e.del(t, e.ts+2, "late-write")
		e.put(t, live("late-write", "v", e.ts+1))
		e.wantAbsent(t, "late-write")
	}},
	{"EqualTimestampTombstoneBeatsLive", func(t *testing.T, e *env) {
		e.put(t, live("write-first", "v", e.ts))
		e.del(t, e.ts, "write-first")
		e.del(t, e.ts, "delete-first")
		e.put(t, live("delete-first", "v", e.ts))
		e.wantAbsent(t, "write-first")
		e.wantAbsent(t, "delete-first")
	}},
	{"EqualTimestampTombstoneBeatsExpiring", func(t *testing.T, e *env) {
		e.put(t, expiring("write-first", "v", e.ts, 3*time.Second))
		e.del(t, e.ts, "write-first")
		e.del(t, e.ts, "delete-first")
		e.put(t, expiring("delete-first", "v", e.ts, 3*time.Second))
		e.wantAbsent(t, "write-first")
		e.wantAbsent(t, "delete-first")
	}},
	{"EqualTimestampExpiringBeatsLive", func(t *testing.T, e *env) {
		// The live cell has the larger value, so only the kind can make the
		// expiring cell win.
		e.put(t, live("live-first", "z", e.ts))
		e.put(t, expiring("live-first", "a", e.ts, 3*time.Second))
		e.put(t, expiring("expiring-first", "a", e.ts, 3*time.Second))
		e.put(t, live("expiring-first", "z", e.ts))
		for _, col := range []string{"live-first", "expiring-first"} {
			if c := e.wantValue(t, col, "a", e.ts); c.TTL <= 0 {
				t.Fatalf("column %q: TTL %v, want the expiring cell's", col, c.TTL)
			}
		}
	}},
	{"EqualTimestampLargerValueWins", func(t *testing.T, e *env) {
		e.put(t, live("small-first", "a", e.ts))
		e.put(t, live("small-first", "b", e.ts))
		e.put(t, live("large-first", "b", e.ts))
		e.put(t, live("large-first", "a", e.ts))
		e.wantValue(t, "small-first", "b", e.ts)
		e.wantValue(t, "large-first", "b", e.ts)

		// Values compare as unsigned bytes: 0x80 is larger than 0x7f.
		e.put(t, live("unsigned", "\x80", e.ts))
		e.put(t, live("unsigned", "\x7f", e.ts))
		e.wantValue(t, "unsigned", "\x80", e.ts)
		e.put(t, live("longer", "ab", e.ts))
		e.put(t, live("longer", "a", e.ts))
		e.wantValue(t, "longer", "ab", e.ts)
	}},
	{"EqualTimestampLaterExpiryWins", func(t *testing.T, e *env) {
		// Written in the same second (or the shorter one a second later),
		// the 3s cell expires later than the 1s cell; its value is smaller,
		// so only the expiry can make it win.
		e.put(t, expiring("long-first", "a", e.ts, 3*time.Second))
		e.put(t, expiring("long-first", "z", e.ts, time.Second))
		e.put(t, expiring("short-first", "z", e.ts, time.Second))
		e.put(t, expiring("short-first", "a", e.ts, 3*time.Second))
		e.wantValue(t, "long-first", "a", e.ts)
		e.wantValue(t, "short-first", "a", e.ts)
	}},
	{"DeleteThenRewriteWithHigherTimestampIsVisible", func(t *testing.T, e *env) {
		e.put(t, live("c", "first", e.ts))
		e.del(t, e.ts+1, "c")
		e.wantAbsent(t, "c")
		e.put(t, live("c", "second", e.ts+2))
		e.wantValue(t, "c", "second", e.ts+2)
	}},
	{"RewriteAtOrBelowTombstoneTimestampStaysInvisible", func(t *testing.T, e *env) {
		e.put(t, live("equal", "first", e.ts))
		e.del(t, e.ts+1, "equal")
		e.put(t, live("equal", "second", e.ts+1))
		e.wantAbsent(t, "equal")

		e.put(t, live("lower", "first", e.ts))
		e.del(t, e.ts+1, "lower")
		e.put(t, expiring("lower", "second", e.ts, 3*time.Second))
		e.wantAbsent(t, "lower")
	}},
}
