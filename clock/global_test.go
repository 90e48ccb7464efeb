package clock_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

func newGlobal(t *testing.T, s lockstep.Store, c lockstep.Clock) *clock.Global {
	t.Helper()
	g, err := clock.NewGlobal(s, "", c)
	if err != nil {
		t.Fatalf("NewGlobal: %v", err)
	}
	return g
}

func readGlobal(t *testing.T, g *clock.Global) int64 {
	t.Helper()
	v, err := g.Read(t.Context())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return v
}

func TestGlobal_ReadOfNeverWrittenCellIsZero(t *testing.T) {
	base := model.NewManualClock(0)
	g := newGlobal(t, model.New(base), base)
	if v := readGlobal(t, g); v != 0 {
		t.Fatalf("Read() = %d, want 0", v)
	}
}

// A process whose clock lags draws above the cell, never below it: its
// Next raises the cell by one each time.
func TestGlobal_LaggingProcessCannotLowerTheCell(t *testing.T) {
	base := model.NewManualClock(0)
	store := model.New(base)
	ahead := newGlobal(t, store, clock.Offset{Base: base, By: 5 * time.Second})
	behind := newGlobal(t, store, clock.Offset{Base: base, By: -10 * time.Second})
	ctx := t.Context()

	high, err := ahead.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		base.Advance(time.Second)
		got, err := behind.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := high + int64(i) + 1; got != want || readGlobal(t, behind) != want {
			t.Fatalf("lagging Next = %d (cell %d), want %d", got, readGlobal(t, behind), want)
		}
	}
}

// hookStore runs afterRead once, after the first Read it serves.
type hookStore struct {
	lockstep.Store
	afterRead func()
}

func (h *hookStore) Read(ctx context.Context, table, row string, s lockstep.Slice) ([]lockstep.Cell, error) {
	cells, err := h.Store.Read(ctx, table, row, s)
	if f := h.afterRead; f != nil {
		h.afterRead = nil
		f()
	}
	return cells, err
}

func TestGlobal_LaggingProcessRacingAheadOneLosesByTimestamp(t *testing.T) {
	// Theorem 5: the lagging process reads the cell before the faster one
	// writes, so it writes its lower time anyway (the two calls overlap, so
	// Lemma 7 asks nothing of their order); last-write-wins keeps the
	// higher value because value and write timestamp are equal.
	base := model.NewManualClock(0)
	store := model.New(base)
	ahead := newGlobal(t, store, clock.Offset{Base: base, By: 5 * time.Second})
	var aheadErr error
	hooked := &hookStore{Store: store, afterRead: func() { _, aheadErr = ahead.Next(t.Context()) }}
	behind := newGlobal(t, hooked, clock.Offset{Base: base, By: -10 * time.Second})

	if _, err := behind.Next(t.Context()); err != nil {
		t.Fatal(err)
	}
	if aheadErr != nil {
		t.Fatal(aheadErr)
	}
	want := base.Now() + (5 * time.Second).Microseconds()
	if v := readGlobal(t, ahead); v != want {
		t.Fatalf("Read() = %d, want the faster process's %d", v, want)
	}
}

func TestGlobal_NextStrictlyIncreasesAcrossSkewedProcesses(t *testing.T) {
	for _, skew := range []struct {
		name   string
		a, b   time.Duration
		stepUS int64
	}{
		{"same clock", 0, 0, 0},
		{"b lags 10s", 0, -10 * time.Second, 0},
		{"a ahead 3s, b lags 10s, clock ticks", 3 * time.Second, -10 * time.Second, 7},
		{"a lags 10s, b ahead 1ms", -10 * time.Second, time.Millisecond, 1000},
	} {
		t.Run(skew.name, func(t *testing.T) {
			base := model.NewManualClock(0)
			store := model.New(base)
			procs := []*clock.Global{
				newGlobal(t, store, clock.Offset{Base: base, By: skew.a}),
				newGlobal(t, store, clock.Offset{Base: base, By: skew.b}),
			}
			var prev int64
			for i := range 200 {
				p := procs[i%2] // strict alternation, then an irregular interleaving
				if i >= 100 {
					p = procs[(i*7/3)%2]
				}
				v, err := p.Next(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if v <= prev {
					t.Fatalf("call %d: Next() = %d, not above the previous %d", i, v, prev)
				}
				if g := readGlobal(t, p); g != v {
					t.Fatalf("call %d: cell holds %d after Next() returned %d", i, g, v)
				}
				prev = v
				base.Advance(time.Duration(skew.stepUS) * time.Microsecond)
			}
		})
	}
}

func TestGlobal_NextStaysAboveLocalTime(t *testing.T) {
	base := model.NewManualClock(0)
	g := newGlobal(t, model.New(base), base)
	v, err := g.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if v < base.Now() {
		t.Fatalf("Next() = %d below local %d", v, base.Now())
	}
}

func TestNewGlobal_RefusesInvalidConfig(t *testing.T) {
	base := model.NewManualClock(0)
	store := model.New(base)
	for _, tc := range []struct {
		name  string
		store lockstep.Store
		table string
		clock lockstep.Clock
	}{
		{"nil store", nil, "", base},
		{"nil clock", store, "", nil},
		{"upper case table", store, "GlobalTime", base},
		{"table with CQL", store, "t; DROP TABLE x", base},
		{"table starting with digit", store, "1time", base},
		{"quoted table", store, `"time"`, base},
		{"table too long", store, strings.Repeat("t", 49), base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := clock.NewGlobal(tc.store, tc.table, tc.clock)
			if !errors.Is(err, lockstep.ErrInvalidConfig) || g != nil {
				t.Fatalf("NewGlobal = %v, %v; want nil, ErrInvalidConfig", g, err)
			}
		})
	}
}

func TestNewGlobal_AcceptsDefaultAndSafeTableNames(t *testing.T) {
	base := model.NewManualClock(0)
	store := model.New(base)
	for _, table := range []string{"", clock.DefaultGlobalTable, "lock_time_2"} {
		if _, err := clock.NewGlobal(store, table, base); err != nil {
			t.Errorf("NewGlobal(table %q) = %v", table, err)
		}
	}
}

func TestGlobal_ReadRefusesMalformedCell(t *testing.T) {
	base := model.NewManualClock(0)
	store := model.New(base)
	if err := store.Put(t.Context(), clock.DefaultGlobalTable, "global_time",
		lockstep.Cell{Column: "global_time", Value: []byte{1, 2, 3}, Timestamp: base.Now()}); err != nil {
		t.Fatal(err)
	}
	g := newGlobal(t, store, base)
	if _, err := g.Read(t.Context()); err == nil {
		t.Fatal("Read of a 3-byte cell succeeded")
	}
}

// Drawn is the last value of the highest block whose draw returned: not one
// whose write failed.
func TestGlobal_DrawnCountsReturnedDrawsOnly(t *testing.T) {
	ctx := context.Background()
	s := model.New(&clock.Local{})
	g := newGlobal(t, s, &clock.Local{})
	if d := g.Drawn(); d != 0 {
		t.Fatalf("Drawn before any draw = %d, want 0", d)
	}
	v, err := g.Reserve(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d := g.Drawn(); d != v+2 {
		t.Fatalf("Drawn after a block of 3 from %d = %d, want %d", v, d, v+2)
	}
	gf := newGlobal(t, failingPuts{s}, &clock.Local{})
	if _, err := gf.Next(ctx); err == nil {
		t.Fatal("Next succeeded though its write failed")
	}
	if d := gf.Drawn(); d != 0 {
		t.Fatalf("Drawn after a failed draw = %d, want 0", d)
	}
}

// failingPuts fails every Put.
type failingPuts struct{ lockstep.Store }

func (failingPuts) Put(context.Context, string, string, ...lockstep.Cell) error {
	return errors.New("put refused")
}
