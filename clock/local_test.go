package clock_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

func TestLocal_ZeroValueReadsWallClockMicros(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c clock.Local
		if got, want := c.Now(), time.Now().UnixMicro(); got != want {
			t.Fatalf("Now() = %d, want %d", got, want)
		}
		time.Sleep(3 * time.Second)
		if got, want := c.Now(), time.Now().UnixMicro(); got != want {
			t.Fatalf("after 3s Now() = %d, want %d", got, want)
		}
	})
}

func TestLocal_NeverGoesBackwardsUnderConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c clock.Local
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				prev := c.Now()
				for i := range 1000 {
					if i%100 == 0 {
						time.Sleep(time.Millisecond)
					}
					now := c.Now()
					if now < prev {
						t.Errorf("Now went back from %d to %d", prev, now)
						return
					}
					prev = now
				}
			})
		}
		wg.Wait()
	})
}

func TestLocal_SleepWaitsForDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c clock.Local
		start := time.Now()
		if err := c.Sleep(t.Context(), 5*time.Second); err != nil {
			t.Fatalf("Sleep: %v", err)
		}
		if got := time.Since(start); got != 5*time.Second {
			t.Fatalf("slept %v, want 5s", got)
		}
	})
}

func TestLocal_SleepReturnsCtxErrWhenCtxEndsFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c clock.Local
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		err := c.Sleep(ctx, time.Hour)
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ctx.Err()) {
			t.Fatalf("Sleep = %v, want ctx.Err() (%v)", err, ctx.Err())
		}
		if got := time.Since(start); got != time.Second {
			t.Fatalf("returned after %v, want 1s", got)
		}
	})
}

func TestLocal_SleepNonPositiveReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c clock.Local
		start := time.Now()
		for _, d := range []time.Duration{0, -time.Second} {
			if err := c.Sleep(t.Context(), d); err != nil {
				t.Fatalf("Sleep(%v) = %v, want nil", d, err)
			}
		}
		if got := time.Since(start); got != 0 {
			t.Fatalf("non-positive sleeps took %v", got)
		}
	})
}

func TestLocal_SleepReportsDoneCtxEvenForNonPositiveDuration(t *testing.T) {
	var c clock.Local
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, d := range []time.Duration{0, -time.Second, time.Hour} {
		if err := c.Sleep(ctx, d); !errors.Is(err, context.Canceled) {
			t.Fatalf("Sleep(%v) on a cancelled ctx = %v, want context.Canceled", d, err)
		}
	}
}

func TestOffset_ShiftsBaseTimeBothWays(t *testing.T) {
	base := model.NewManualClock(0)
	for _, by := range []time.Duration{0, 5 * time.Second, -10 * time.Second, 1500 * time.Microsecond} {
		o := clock.Offset{Base: base, By: by}
		if got, want := o.Now(), base.Now()+by.Microseconds(); got != want {
			t.Errorf("Offset{By: %v}.Now() = %d, want %d", by, got, want)
		}
	}
	o := clock.Offset{Base: base, By: -10 * time.Second}
	before := o.Now()
	base.Advance(time.Second)
	if got := o.Now() - before; got != time.Second.Microseconds() {
		t.Fatalf("Offset advanced %d µs with its base's 1s", got)
	}
}

func TestOffset_SleepsOnItsBase(t *testing.T) {
	base := model.NewManualClock(0)
	o := clock.Offset{Base: base, By: -time.Hour}
	done := make(chan error, 1)
	go func() { done <- o.Sleep(context.Background(), 2*time.Second) }()
	base.BlockUntil(1)
	base.Advance(2 * time.Second)
	if err := <-done; err != nil {
		t.Fatalf("Sleep: %v", err)
	}
}
