package model

import (
	"context"
	"testing"
	"time"
)

func TestManualClock_StartsAtDefaultOrGivenTime(t *testing.T) {
	if got := NewManualClock(0).Now(); got != DefaultStart {
		t.Fatalf("default start %d, want %d", got, DefaultStart)
	}
	if got := NewManualClock(42).Now(); got != 42 {
		t.Fatalf("start %d, want 42", got)
	}
}

func TestManualClock_AdvanceWakesSleepersAtTheirDeadline(t *testing.T) {
	c := NewManualClock(1_000)
	done := make(chan time.Duration, 2)
	for _, d := range []time.Duration{time.Second, 2 * time.Second} {
		go func() {
			if err := c.Sleep(context.Background(), d); err != nil {
				t.Error(err)
			}
			done <- d
		}()
	}
	c.BlockUntil(2)
	c.Advance(999_999 * time.Microsecond)
	select {
	case d := <-done:
		t.Fatalf("sleeper of %v woke early", d)
	default:
	}
	c.Advance(time.Microsecond)
	if d := <-done; d != time.Second {
		t.Fatalf("woke %v, want 1s", d)
	}
	if n := c.Sleepers(); n != 1 {
		t.Fatalf("Sleepers = %d, want 1", n)
	}
	if next, ok := c.NextDeadline(); !ok || next != 1_000+2_000_000 {
		t.Fatalf("NextDeadline = %d, %v", next, ok)
	}
	c.Set(1_000 + 2_000_000)
	if d := <-done; d != 2*time.Second {
		t.Fatalf("woke %v, want 2s", d)
	}
	if _, ok := c.NextDeadline(); ok {
		t.Fatal("NextDeadline with no sleeper")
	}
}

func TestManualClock_SleepEndsWithCtx(t *testing.T) {
	c := NewManualClock(0)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { errc <- c.Sleep(ctx, time.Hour) }()
	c.BlockUntil(1)
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Fatalf("Sleep = %v, want context.Canceled", err)
	}
	if n := c.Sleepers(); n != 0 {
		t.Fatalf("Sleepers = %d after cancel, want 0", n)
	}
}

func TestManualClock_NonPositiveSleepReturnsAtOnce(t *testing.T) {
	c := NewManualClock(0)
	if err := c.Sleep(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, -time.Second); err != context.Canceled {
		t.Fatalf("Sleep(-1s) with done ctx = %v", err)
	}
	if err := c.Sleep(ctx, time.Second); err != context.Canceled {
		t.Fatalf("Sleep(1s) with done ctx = %v", err)
	}
}

func TestManualClock_SubMicrosecondSleepNeedsTimeToMove(t *testing.T) {
	c := NewManualClock(0)
	errc := make(chan error)
	go func() { errc <- c.Sleep(context.Background(), time.Nanosecond) }()
	c.BlockUntil(1)
	c.Advance(time.Microsecond)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func TestManualClock_SetBackwardsKeepsDeadlines(t *testing.T) {
	c := NewManualClock(10_000_000)
	errc := make(chan error)
	go func() { errc <- c.Sleep(context.Background(), time.Second) }()
	c.BlockUntil(1)
	c.Set(0)
	c.Advance(10 * time.Second)
	if c.Sleepers() != 1 {
		t.Fatal("sleeper woke before its deadline")
	}
	c.Advance(time.Second)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func TestManualClock_BlockUntilContextEndsWithCtx(t *testing.T) {
	c := NewManualClock(0)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { errc <- c.BlockUntilContext(ctx, 1) }()
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Fatalf("BlockUntilContext = %v", err)
	}
	if err := c.BlockUntilContext(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
}

func TestManualClock_DefaultStartIsNewYear2026(t *testing.T) {
	if want := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro(); DefaultStart != want {
		t.Fatalf("DefaultStart = %d, want %d", DefaultStart, want)
	}
}
