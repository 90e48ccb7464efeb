package lease

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

func TestConfig_Validate(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Config{TTL: 30 * time.Second, Renew: 10 * time.Second}, true},
		{"zero ttl", Config{TTL: 0, Renew: time.Second}, false},
		{"negative ttl", Config{TTL: -time.Second, Renew: time.Second}, false},
		{"fractional ttl", Config{TTL: 1500 * time.Millisecond, Renew: 100 * time.Millisecond}, false},
		{"zero renew", Config{TTL: 3 * time.Second}, false},
		{"renew above ttl/3", Config{TTL: 3 * time.Second, Renew: 1001 * time.Millisecond}, false},
		{"renew equal ttl/3", Config{TTL: 3 * time.Second, Renew: time.Second}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.Validate()
			if c.ok && err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
			if !c.ok && !errors.Is(err, lockstep.ErrInvalidConfig) {
				t.Fatalf("Validate() = %v, want ErrInvalidConfig", err)
			}
		})
	}
}

func TestLease_RenewsWellPastTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		var renewals atomic.Int64
		l := Start(c, Config{TTL: 3 * time.Second, Renew: time.Second}, c.Now(), func(context.Context) error {
			renewals.Add(1)
			return nil
		}, Hooks{})
		time.Sleep(30 * time.Second)
		select {
		case <-l.Lost():
			t.Fatal("lease lost while renewals succeed")
		default:
		}
		l.Stop()
		if n := renewals.Load(); n < 29 || n > 30 {
			t.Fatalf("renewals = %d over 30s at 1s interval, want 29 or 30", n)
		}
	})
}

func TestLease_LostWithinHalfTTLWhenRenewalFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		start := time.Now()
		var lostHook atomic.Bool
		l := Start(c, Config{TTL: 4 * time.Second, Renew: time.Second}, c.Now(), func(context.Context) error {
			return errors.New("store down")
		}, Hooks{Lost: func() { lostHook.Store(true) }})
		<-l.Lost()
		if got := time.Since(start); got != 2*time.Second {
			t.Fatalf("lost after %v, want exactly TTL/2 = 2s", got)
		}
		if !l.IsLost() || !lostHook.Load() {
			t.Fatal("IsLost or Lost hook not set")
		}
		l.Stop()
	})
}

func TestLease_StopsRenewingAfterLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		var calls atomic.Int64
		fail := atomic.Bool{}
		fail.Store(true)
		l := Start(c, Config{TTL: 3 * time.Second, Renew: time.Second}, c.Now(), func(context.Context) error {
			calls.Add(1)
			if fail.Load() {
				return errors.New("down")
			}
			return nil
		}, Hooks{})
		<-l.Lost()
		before := calls.Load()
		fail.Store(false)
		time.Sleep(10 * time.Second)
		if after := calls.Load(); after != before {
			t.Fatalf("renewals after loss: %d, want 0", after-before)
		}
		l.Stop()
	})
}

func TestLease_SlowRenewalCountsFromSend(t *testing.T) {
	// A renewal that is sent in time but answered late must not extend the
	// lease beyond TTL/2 from the moment it was sent.
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		start := time.Now()
		l := Start(c, Config{TTL: 6 * time.Second, Renew: 2 * time.Second}, c.Now(), func(ctx context.Context) error {
			return c.Sleep(ctx, 10*time.Second) // hangs past the deadline
		}, Hooks{})
		<-l.Lost()
		if got := time.Since(start); got != 3*time.Second {
			t.Fatalf("lost after %v, want 3s", got)
		}
		l.Stop()
	})
}

func TestLease_StopIsIdempotentAndJoins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		l := Start(c, Config{TTL: 3 * time.Second, Renew: time.Second}, c.Now(), func(context.Context) error { return nil }, Hooks{})
		l.Stop()
		l.Stop()
		synctest.Wait() // every goroutine of the lease has exited, or this would block on them
	})
}

// A caller that checks Lost before working must never work past the deadline,
// even when the watchdog goroutine has not run (found by the model checks: a
// claim acknowledged late, a process paused as a whole).
func TestLease_LostIsCheckedSynchronously(t *testing.T) {
	c := model.NewManualClock(0)
	l := Start(c, Config{TTL: 4 * time.Second, Renew: time.Second}, c.Now()-(2*time.Second).Microseconds(), func(context.Context) error { return nil }, Hooks{})
	select {
	case <-l.Lost():
	default:
		t.Fatal("Lost() open although the acquisition was sent TTL/2 ago")
	}
	l.Stop()
}

// With Renew = TTL/3 the next regular renewal after a failure would come
// after the TTL/2 deadline; a quick retry keeps one timeout from losing the
// lease.
func TestLease_OneFailedRenewalDoesNotLoseTheLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		var calls atomic.Int64
		l := Start(c, Config{TTL: 3 * time.Second, Renew: time.Second}, c.Now(), func(context.Context) error {
			if calls.Add(1) == 2 {
				return errors.New("one timeout")
			}
			return nil
		}, Hooks{})
		time.Sleep(10 * time.Second)
		select {
		case <-l.Lost():
			t.Fatal("lease lost after a single failed renewal")
		default:
		}
		l.Stop()
	})
}
