package clock_test

import (
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

func TestHLC_NowIsAtLeastLocalTime(t *testing.T) {
	clk := model.NewManualClock(0)
	h := clock.NewHLC(clk)
	for range 5 {
		if got := h.Now(); got < clk.Now() {
			t.Fatalf("Now() = %d below the local %d", got, clk.Now())
		}
		clk.Advance(time.Millisecond)
	}
	clk.Advance(time.Hour)
	if got := h.Now(); got != clk.Now() {
		t.Fatalf("Now() = %d, want the local %d once local is ahead", got, clk.Now())
	}
}

func TestHLC_NowExceedsObservedTimeWhenLocalLags10s(t *testing.T) {
	base := model.NewManualClock(0)
	lagging := clock.Offset{Base: base, By: -10 * time.Second}
	h := clock.NewHLC(lagging)
	seen := base.Now() // a queue time written by a process 10 s ahead
	h.Observe(seen)
	first := h.Now()
	if first <= seen {
		t.Fatalf("Now() = %d, not above the observed %d", first, seen)
	}
	if second := h.Now(); second <= first {
		t.Fatalf("Now() = %d after %d: not increasing", second, first)
	}
}

func TestHLC_ObservingAnOlderTimeChangesNothing(t *testing.T) {
	clk := model.NewManualClock(0)
	h := clock.NewHLC(clk)
	a := h.Now()
	h.Observe(a - 1_000_000)
	if b := h.Now(); b != a+1 {
		t.Fatalf("Now() = %d after observing an older time, want %d", b, a+1)
	}
}

func TestHLC_StrictlyIncreasesUnderConcurrencyWhileClockJumps(t *testing.T) {
	clk := model.NewManualClock(0)
	h := clock.NewHLC(clk)
	issueConcurrently(t, h.Now, jitter(clk))
}

func TestHLC_StrictlyIncreasesWithConcurrentObserves(t *testing.T) {
	clk := model.NewManualClock(0)
	h := clock.NewHLC(clk)
	start := clk.Now()
	issueConcurrently(t, h.Now, func(stop <-chan struct{}) {
		for i := int64(0); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			h.Observe(start + i) // other processes' times, racing ahead
		}
	})
	if got := h.Now(); got <= clk.Now() {
		t.Fatalf("Now() = %d, want above local %d", got, clk.Now())
	}
}

func TestHLC_SleepsOnTheLocalClock(t *testing.T) {
	clk := model.NewManualClock(0)
	h := clock.NewHLC(clk)
	done := make(chan error, 1)
	go func() { done <- h.Sleep(t.Context(), time.Second) }()
	clk.BlockUntil(1)
	clk.Advance(time.Second)
	if err := <-done; err != nil {
		t.Fatalf("Sleep: %v", err)
	}
}
