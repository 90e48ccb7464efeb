package clock_test

import (
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// A block reserved by one process is below every later draw of another,
// even one whose clock lags far behind: the cell holds the block's last
// value, so the lagging draw starts above it (Lemma 7, extended to blocks).
func TestGlobal_ReserveKeepsLaterDrawsAboveTheWholeBlock(t *testing.T) {
	for _, n := range []int{1, 2, 9} {
		base := model.NewManualClock(0)
		store := model.New(base)
		ahead := newGlobal(t, store, clock.Offset{Base: base, By: 5 * time.Second})
		behind := newGlobal(t, store, clock.Offset{Base: base, By: -10 * time.Second})
		ctx := t.Context()
		v, err := ahead.Reserve(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		last := v + int64(n) - 1
		if got := readGlobal(t, ahead); got != last {
			t.Fatalf("n=%d: cell holds %d after Reserve returned %d, want the block's last %d", n, got, v, last)
		}
		base.Advance(time.Millisecond)
		w, err := behind.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if w != last+1 {
			t.Fatalf("n=%d: a later draw returned %d, want just above the block [%d, %d]", n, w, v, last)
		}
		b, err := behind.Reserve(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if b != w+1 {
			t.Fatalf("n=%d: a later block starts at %d, want %d", n, b, w+1)
		}
	}
}

// A process's own draws after a block start above it, whatever the cell
// says: a read that raced with the block's write cannot lower them.
func TestGlobal_ReserveRaisesTheProcessesOwnNextDraw(t *testing.T) {
	base := model.NewManualClock(0)
	g := newGlobal(t, model.New(base), base)
	v, err := g.Reserve(t.Context(), 5)
	if err != nil {
		t.Fatal(err)
	}
	w, err := g.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if w != v+5 {
		t.Fatalf("Next after Reserve(5) = %d, want %d", w, v+5)
	}
}

func TestGlobal_ReserveRefusesAnEmptyBlockAndSendsNothing(t *testing.T) {
	base := model.NewManualClock(0)
	g := newGlobal(t, model.New(base), base)
	for _, n := range []int{0, -3} {
		if _, err := g.Reserve(t.Context(), n); err == nil {
			t.Fatalf("Reserve(%d) succeeded", n)
		}
	}
	if v := readGlobal(t, g); v != 0 {
		t.Fatalf("cell holds %d after refused reserves, want 0 (never written)", v)
	}
}
