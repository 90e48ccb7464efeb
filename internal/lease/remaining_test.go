package lease

import (
	"context"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/model"
)

// Remaining is the time left to the deadline the lease itself keeps: a
// window from the send of the last successful write, 0 once lost, and it
// declares the loss as Lost does.
func TestLease_RemainingCountsFromTheLastSuccessfulSend(t *testing.T) {
	c := model.NewManualClock(0)
	sent := Stamp(c)
	// Renewals never succeed on their own: lastOK moves only where the test
	// says so.
	l := startLease(t, c, sent, func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, Hooks{})
	defer l.Stop()
	if got := l.Remaining(); got != cfg.Window() {
		t.Fatalf("Remaining at the send = %v, want the window %v", got, cfg.Window())
	}
	c.Advance(1500 * time.Millisecond)
	if got, want := l.Remaining(), cfg.Window()-1500*time.Millisecond; got != want {
		t.Fatalf("Remaining 1.5s after the send = %v, want %v", got, want)
	}
	l.succeeded(Stamp(c) - (200 * time.Millisecond).Microseconds()) // a renewal sent 200ms ago succeeded
	if got, want := l.Remaining(), cfg.Window()-200*time.Millisecond; got != want {
		t.Fatalf("Remaining after a renewal sent 200ms ago = %v, want %v", got, want)
	}
	c.Advance(cfg.Window())
	if got := l.Remaining(); got != 0 {
		t.Fatalf("Remaining past the deadline = %v, want 0", got)
	}
	select {
	case <-l.lost:
	default:
		t.Fatal("Remaining past the deadline did not declare the lease lost")
	}
}

// The planted defect RemainingPastDeadline adds its duration; the property
// tests' valid-for property catches it (propertytests, control
// ValidForPastDeadline).
func TestLease_RemainingPastDeadlineKnob(t *testing.T) {
	c := model.NewManualClock(0)
	k := cfg
	k.Knobs = &TestingKnobs{RemainingPastDeadline: time.Second}
	s, err := NewScheduler(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l := s.Start(k, Stamp(c), func(context.Context) error { return nil }, Hooks{})
	defer l.Stop()
	if got, want := l.Remaining(), k.Window()+time.Second; got != want {
		t.Fatalf("Remaining with the knob = %v, want %v", got, want)
	}
}
