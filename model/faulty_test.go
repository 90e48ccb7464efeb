package model

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
)

func newFaulty(t *testing.T, cfg FaultConfig) (*Faulty, *Store) {
	t.Helper()
	s, _ := newTestStore()
	f, err := NewFaulty(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f, s
}

func TestFaulty_FailBeforeAppliesNothing(t *testing.T) {
	f, s := newFaulty(t, FaultConfig{FailBefore: 1})
	err := f.Put(t.Context(), "t", "r", lockstep.Cell{Column: "c", Timestamp: 1})
	if !errors.Is(err, ErrInjected) || errors.Is(err, lockstep.ErrUnknownOutcome) {
		t.Fatalf("Put = %v, want ErrInjected and not ErrUnknownOutcome", err)
	}
	if got := mustRead(t, s, lockstep.Slice{}); len(got) != 0 {
		t.Fatalf("failed-before put wrote %+v", got)
	}
	if st := f.Stats(); st.Before != 1 || st.After != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestFaulty_FailAfterAppliesAndReportsUnknownOutcome(t *testing.T) {
	f, s := newFaulty(t, FaultConfig{FailAfter: 1})
	err := f.Put(t.Context(), "t", "r", lockstep.Cell{Column: "c", Timestamp: 1})
	if !errors.Is(err, ErrInjected) || !errors.Is(err, lockstep.ErrUnknownOutcome) {
		t.Fatalf("Put = %v, want ErrInjected and ErrUnknownOutcome", err)
	}
	if got := mustRead(t, s, lockstep.Slice{}); len(got) != 1 {
		t.Fatalf("failed-after put not applied: %+v", got)
	}
	if err := f.Delete(t.Context(), "t", "r", 2, "c"); !errors.Is(err, lockstep.ErrUnknownOutcome) {
		t.Fatalf("Delete = %v", err)
	}
	if got := mustRead(t, s, lockstep.Slice{}); len(got) != 0 {
		t.Fatalf("failed-after delete not applied: %+v", got)
	}
	if cells, err := f.Read(t.Context(), "t", "r", lockstep.Slice{}); !errors.Is(err, ErrInjected) || cells != nil {
		t.Fatalf("Read = %v, %v", cells, err)
	}
}

func TestFaulty_OpsSelectWhatIsDisturbed(t *testing.T) {
	f, _ := newFaulty(t, FaultConfig{FailBefore: 1, Ops: OpRead})
	if err := f.Put(t.Context(), "t", "r", lockstep.Cell{Column: "c", Timestamp: 1}); err != nil {
		t.Fatalf("Put disturbed: %v", err)
	}
	if err := f.Delete(t.Context(), "t", "r", 0, "x"); err != nil {
		t.Fatalf("Delete disturbed: %v", err)
	}
	if _, err := f.Read(t.Context(), "t", "r", lockstep.Slice{}); !errors.Is(err, ErrInjected) {
		t.Fatalf("Read not disturbed: %v", err)
	}
}

func TestFaulty_SetEnabledSwitchesFaultsAtRunTime(t *testing.T) {
	f, _ := newFaulty(t, FaultConfig{FailBefore: 1})
	f.SetEnabled(false)
	if f.Enabled() {
		t.Fatal("Enabled after SetEnabled(false)")
	}
	if _, err := f.Read(t.Context(), "t", "r", lockstep.Slice{}); err != nil {
		t.Fatalf("disabled: %v", err)
	}
	f.SetEnabled(true)
	if _, err := f.Read(t.Context(), "t", "r", lockstep.Slice{}); !errors.Is(err, ErrInjected) {
		t.Fatalf("enabled: %v", err)
	}
}

func TestFaulty_SameSeedSameFaults(t *testing.T) {
	run := func() []bool {
		f, _ := newFaulty(t, FaultConfig{FailBefore: 0.3, FailAfter: 0.3, Rand: rand.New(rand.NewPCG(7, 7))})
		var out []bool
		for range 100 {
			_, err := f.Read(t.Context(), "t", "r", lockstep.Slice{})
			out = append(out, err != nil)
		}
		return out
	}
	a, b := run(), run()
	failed := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("call %d differs between runs with one seed", i)
		}
		if a[i] {
			failed++
		}
	}
	if failed < 30 || failed > 70 { // expected 51
		t.Fatalf("%d of 100 failed, want about half", failed)
	}
}

func TestFaulty_LatencyPassesInVirtualTime(t *testing.T) {
	clock := NewManualClock(0)
	f, _ := newFaulty(t, FaultConfig{MinLatency: time.Second, MaxLatency: time.Second, Clock: clock})
	errc := make(chan error)
	go func() { errc <- f.Put(context.Background(), "t", "r", lockstep.Cell{Column: "c", Timestamp: 1}) }()
	clock.BlockUntil(1)
	clock.Advance(time.Second)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func TestFaulty_CtxEndingDuringLatencyAppliesNothing(t *testing.T) {
	clock := NewManualClock(0)
	f, s := newFaulty(t, FaultConfig{MinLatency: time.Second, MaxLatency: 2 * time.Second, Clock: clock})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { errc <- f.Put(ctx, "t", "r", lockstep.Cell{Column: "c", Timestamp: 1}) }()
	clock.BlockUntil(1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Put = %v, want context.Canceled", err)
	}
	if got := mustRead(t, s, lockstep.Slice{}); len(got) != 0 {
		t.Fatalf("cancelled put wrote %+v", got)
	}
}

func TestNewFaulty_RejectsInvalidConfig(t *testing.T) {
	s, _ := newTestStore()
	for _, cfg := range []FaultConfig{
		{FailBefore: -0.1}, {FailBefore: 1.1}, {FailAfter: 2},
		{MinLatency: 2, MaxLatency: 1}, {MinLatency: -1},
		{MaxLatency: time.Second}, // no clock
		{Ops: 1 << 6},
	} {
		if _, err := NewFaulty(s, cfg); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("NewFaulty(%+v) = %v, want ErrInvalidConfig", cfg, err)
		}
	}
	if _, err := NewFaulty(nil, FaultConfig{}); !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Errorf("nil store: %v", err)
	}
}

func TestOp_String(t *testing.T) {
	for op, want := range map[Op]string{OpPut: "put", OpDelete: "delete", OpRead: "read", OpAll: "Op(0x7)"} {
		if op.String() != want {
			t.Errorf("%q, want %q", op.String(), want)
		}
	}
}

type dcLocal struct{ lockstep.Store }

func (dcLocal) Scope() lockstep.Scope { return lockstep.LocalTo("dc1") }

func TestFaulty_KeepsTheScopeOfTheStoreItWraps(t *testing.T) {
	inner, _ := newTestStore()
	f, err := NewFaulty(dcLocal{inner}, FaultConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if s := lockstep.ScopeOf(f); s != lockstep.LocalTo("dc1") {
		t.Fatalf("scope %v, want the wrapped store's", s)
	}
	g, err := NewFaulty(inner, FaultConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if s := lockstep.ScopeOf(g); !s.IsGlobal() {
		t.Fatalf("scope %v, want global", s)
	}
}
