package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
)

// Harness is what the suite needs to exercise one Store.
type Harness struct {
	// Store is the store under test.
	Store lockstep.Store
	// Table is a table with the generic cell schema, already created. It may
	// hold other data; every case uses partitions of its own.
	Table string
	// Now returns microseconds from a time source close to the store's
	// clock, for choosing write timestamps.
	Now func() int64
	// Advance lets d pass for TTL cases: a simulated store advances its
	// virtual clock, a real one sleeps.
	Advance func(t testing.TB, d time.Duration)
}

// Run runs every conformance case as a parallel subtest of t. It calls
// newHarness once per case, from that case's goroutine and possibly
// concurrently with other cases.
func Run(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			if h.Store == nil || h.Table == "" || h.Now == nil || h.Advance == nil {
				t.Fatal("storetest: harness with a nil Store, Now or Advance, or an empty Table")
			}
			c.run(t, newEnv(t, h))
		})
	}
}

// testCase is one behaviour of the contract.
type testCase struct {
	name string
	run  func(t *testing.T, e *env)
}

// env is one case's view of the store: its harness and its own partition.
type env struct {
	h   Harness
	ctx context.Context
	row string
	ts  int64 // a base timestamp, from h.Now at the start of the case
}

func newEnv(t *testing.T, h Harness) *env {
	name := strings.NewReplacer("/", ".", " ", "_").Replace(t.Name())
	return &env{
		h:   h,
		ctx: t.Context(),
		row: fmt.Sprintf("storetest/%s/%016x", name, rand.Uint64()),
		ts:  h.Now(),
	}
}

// put writes cells to the case's partition, failing the test on error.
func (e *env) put(t *testing.T, cells ...lockstep.Cell) {
	t.Helper()
	if err := e.h.Store.Put(e.ctx, e.h.Table, e.row, cells...); err != nil {
		t.Fatalf("Put(%v): %v", cells, err)
	}
}

// del deletes columns of the case's partition, failing the test on error.
func (e *env) del(t *testing.T, ts int64, columns ...string) {
	t.Helper()
	if err := e.h.Store.Delete(e.ctx, e.h.Table, e.row, ts, columns...); err != nil {
		t.Fatalf("Delete(%d, %q): %v", ts, columns, err)
	}
}

// read reads a slice of the case's partition, failing the test on error.
func (e *env) read(t *testing.T, s lockstep.Slice) []lockstep.Cell {
	t.Helper()
	cells, err := e.h.Store.Read(e.ctx, e.h.Table, e.row, s)
	if err != nil {
		t.Fatalf("Read(%+v): %v", s, err)
	}
	return cells
}

// get returns the live cell column, if any.
func (e *env) get(t *testing.T, column string) (lockstep.Cell, bool) {
	t.Helper()
	for _, c := range e.read(t, lockstep.Slice{}) {
		if c.Column == column {
			return c, true
		}
	}
	return lockstep.Cell{}, false
}

// wantValue fails unless column reads as value written at ts.
func (e *env) wantValue(t *testing.T, column, value string, ts int64) lockstep.Cell {
	t.Helper()
	c, ok := e.get(t, column)
	switch {
	case !ok:
		t.Fatalf("column %q absent, want %q@%d", column, value, ts)
	case string(c.Value) != value || c.Timestamp != ts:
		t.Fatalf("column %q = %q@%d, want %q@%d", column, c.Value, c.Timestamp, value, ts)
	}
	return c
}

// wantAbsent fails if column reads as a live cell.
func (e *env) wantAbsent(t *testing.T, column string) {
	t.Helper()
	if c, ok := e.get(t, column); ok {
		t.Fatalf("column %q = %q@%d (TTL %v), want absent", column, c.Value, c.Timestamp, c.TTL)
	}
}

// wantColumns fails unless cells are exactly the named columns, in order.
func wantColumns(t *testing.T, what string, cells []lockstep.Cell, want ...string) {
	t.Helper()
	got := make([]string, len(cells))
	for i, c := range cells {
		got[i] = c.Column
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: columns %q, want %q", what, got, want)
	}
}

// live returns a cell without TTL.
func live(column, value string, ts int64) lockstep.Cell {
	return lockstep.Cell{Column: column, Value: []byte(value), Timestamp: ts}
}

// expiring returns a cell with a TTL.
func expiring(column, value string, ts int64, ttl time.Duration) lockstep.Cell {
	return lockstep.Cell{Column: column, Value: []byte(value), Timestamp: ts, TTL: ttl}
}
