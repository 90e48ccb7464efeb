package lease

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// start begins a lease on a Scheduler of its own, closed when the test ends.
func startLease(t testing.TB, c lockstep.Clock, since int64, renew func(context.Context) error, hooks Hooks) *Lease {
	t.Helper()
	s, err := NewScheduler(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.Start(cfg, since, renew, hooks)
}

// cfg is the timing most tests use: TTL 6s, MaxServerSkew 1s, so the
// window is (6 − 1 − 1)/2 = 2s and Renew may be at most 1s.
var cfg = Config{TTL: 6 * time.Second, Renew: time.Second, MaxServerSkew: time.Second}

func TestConfig_Validate(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Config{TTL: 30 * time.Second, Renew: 7 * time.Second, MaxServerSkew: time.Second}, true},
		{"old default renew above half the window", Config{TTL: 30 * time.Second, Renew: 10 * time.Second, MaxServerSkew: time.Second}, false},
		{"zero ttl", Config{TTL: 0, Renew: time.Second}, false},
		{"negative ttl", Config{TTL: -time.Second, Renew: time.Second}, false},
		{"fractional ttl", Config{TTL: 4500 * time.Millisecond, Renew: 100 * time.Millisecond}, false},
		{"zero renew", Config{TTL: 6 * time.Second, MaxServerSkew: time.Second}, false},
		{"negative skew", Config{TTL: 6 * time.Second, Renew: time.Second, MaxServerSkew: -time.Millisecond}, false},
		{"renew at half the window", cfg, true},
		{"renew above half the window", Config{TTL: 6 * time.Second, Renew: time.Second + 1, MaxServerSkew: time.Second}, false},
		{"ttl 1s", Config{TTL: time.Second, Renew: 100 * time.Millisecond}, false},
		{"ttl 2s", Config{TTL: 2 * time.Second, Renew: 100 * time.Millisecond}, false},
		{"ttl 3s with skew 1s", Config{TTL: 3 * time.Second, Renew: 100 * time.Millisecond, MaxServerSkew: time.Second}, false},
		{"smallest ttl with skew 1s", Config{TTL: 4 * time.Second, Renew: 500 * time.Millisecond, MaxServerSkew: time.Second}, true},
		{"smallest ttl with skew 0", Config{TTL: 3 * time.Second, Renew: 500 * time.Millisecond}, true},
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

// The lease window is half of what a cell surely lives: TTL − 1s for
// whole-second expiry, less the servers' clock skew.
func TestConfig_WindowIsHalfTheCellsSureLife(t *testing.T) {
	for _, c := range []struct {
		ttl, skew, want time.Duration
	}{
		{30 * time.Second, time.Second, 14 * time.Second},
		{6 * time.Second, time.Second, 2 * time.Second},
		{4 * time.Second, time.Second, time.Second},
		{4 * time.Second, 500 * time.Millisecond, 1250 * time.Millisecond},
		{2 * time.Second, 0, 500 * time.Millisecond},
	} {
		if got := (Config{TTL: c.ttl, MaxServerSkew: c.skew}).Window(); got != c.want {
			t.Errorf("Window(TTL %v, skew %v) = %v, want %v", c.ttl, c.skew, got, c.want)
		}
	}
}

func TestMinTTL_LeavesAtLeastMinWindow(t *testing.T) {
	for _, c := range []struct{ skew, want time.Duration }{
		{0, 3 * time.Second},
		{250 * time.Millisecond, 4 * time.Second},
		{500 * time.Millisecond, 4 * time.Second},
		{time.Second, 4 * time.Second},
		{1500 * time.Millisecond, 5 * time.Second},
		{10 * time.Second, 13 * time.Second},
	} {
		got := MinTTL(c.skew)
		if got != c.want {
			t.Errorf("MinTTL(%v) = %v, want %v", c.skew, got, c.want)
		}
		if w := (Config{TTL: got, MaxServerSkew: c.skew}).Window(); w < MinWindow {
			t.Errorf("MinTTL(%v) = %v leaves a window of %v < %v", c.skew, got, w, MinWindow)
		}
		if w := (Config{TTL: got - time.Second, MaxServerSkew: c.skew}).Window(); w >= MinWindow {
			t.Errorf("MinTTL(%v) = %v is not the smallest: %v leaves %v", c.skew, got, got-time.Second, w)
		}
	}
}

// The refusal of a short TTL says what to do: it names the smallest TTL.
func TestConfig_ShortTTLErrorNamesTheMinimum(t *testing.T) {
	err := Config{TTL: time.Second, Renew: 100 * time.Millisecond, MaxServerSkew: time.Second}.Validate()
	if err == nil || !strings.Contains(err.Error(), "at least 4s") {
		t.Fatalf("Validate() = %v, want it to name the smallest TTL, 4s", err)
	}
}

func TestConfig_DefaultRenewIsAccepted(t *testing.T) {
	for _, ttl := range []time.Duration{4 * time.Second, 5 * time.Second, 30 * time.Second, time.Hour} {
		c := Config{TTL: ttl, MaxServerSkew: time.Second}
		c.Renew = c.DefaultRenew()
		if err := c.Validate(); err != nil {
			t.Errorf("TTL %v: default Renew %v refused: %v", ttl, c.Renew, err)
		}
	}
}

func TestLease_RenewsWellPastTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		var renewals atomic.Int64
		l := startLease(t, c, Stamp(c), func(context.Context) error {
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

func TestLease_LostWithinTheWindowWhenRenewalFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		start := time.Now()
		l := startLease(t, c, Stamp(c), func(context.Context) error {
			return errors.New("store down")
		}, Hooks{})
		<-l.Lost()
		if got := time.Since(start); got != cfg.Window() {
			t.Fatalf("lost after %v, want exactly the window, %v", got, cfg.Window())
		}
		l.Stop()
	})
}

func TestLease_StopsRenewingAfterLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		var calls atomic.Int64
		l := startLease(t, c, Stamp(c), func(context.Context) error {
			calls.Add(1)
			return errors.New("store down")
		}, Hooks{})
		<-l.Lost()
		before := calls.Load()
		time.Sleep(10 * time.Second)
		if after := calls.Load(); after != before {
			t.Fatalf("renewals after loss: %d, want 0", after-before)
		}
		l.Stop()
	})
}

func TestLease_SlowRenewalCountsFromSend(t *testing.T) {
	// A renewal that is sent in time but answered late must not extend the
	// lease beyond the window from the moment it was sent.
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		start := time.Now()
		l := startLease(t, c, Stamp(c), func(ctx context.Context) error {
			return c.Sleep(ctx, 10*time.Second) // hangs past the deadline
		}, Hooks{})
		<-l.Lost()
		if got := time.Since(start); got != cfg.Window() {
			t.Fatalf("lost after %v, want %v", got, cfg.Window())
		}
		l.Stop()
	})
}

func TestLease_StopIsIdempotentAndJoins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		l := startLease(t, c, Stamp(c), func(context.Context) error { return nil }, Hooks{})
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
	l := startLease(t, c, Stamp(c)-cfg.Window().Microseconds(), func(context.Context) error { return nil }, Hooks{})
	select {
	case <-l.Lost():
	default:
		t.Fatal("Lost() open although the acquisition was sent a window ago")
	}
	l.Stop()
}

// A wall clock stepped back (NTP, an operator) must not stretch the lease:
// the deadline is on elapsed time. A lease on a wall clock that repeats its
// last value after a step back (the planted WallClock) would keep Lost open
// for as long as the step while the cells expired on the servers.
func TestLease_WallClockStepBackDoesNotStretchTheLease(t *testing.T) {
	c := model.NewManualClock(0)
	l := startLease(t, c, Stamp(c), func(context.Context) error { return errors.New("store down") }, Hooks{})
	c.StepWall(-2 * cfg.TTL)
	c.Advance(cfg.Window())
	select {
	case <-l.Lost():
	default:
		t.Fatal("Lost() open a window after the last successful write, after a wall-clock step back")
	}
	l.Stop()
}

// A wall clock stepped forward must not cut the lease short either.
func TestLease_WallClockStepForwardDoesNotShortenTheLease(t *testing.T) {
	c := model.NewManualClock(0)
	l := startLease(t, c, Stamp(c), func(context.Context) error { return nil }, Hooks{})
	c.StepWall(2 * cfg.TTL)
	select {
	case <-l.Lost():
		t.Fatal("Lost() closed by a wall-clock step forward")
	default:
	}
	l.Stop()
}

// With Renew at half the window the next regular renewal after a failure
// would come at the deadline; a quick retry keeps one timeout from losing the
// lease.
func TestLease_OneFailedRenewalDoesNotLoseTheLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		var calls atomic.Int64
		l := startLease(t, c, Stamp(c), func(context.Context) error {
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

// The table of docs/algorithms.md, section 2.1: for each TTL, with the
// default MaxServerSkew of 1 s, the lease window and the default renewal
// period; a crashed holder blocks an id for at most TTL + MaxServerSkew.
func TestDefaultRenew_TheTableOfTheLeasesDoc(t *testing.T) {
	for _, c := range []struct{ ttl, window, renew time.Duration }{
		{4 * time.Second, time.Second, 500 * time.Millisecond},
		{10 * time.Second, 4 * time.Second, 2 * time.Second},
		{30 * time.Second, 14 * time.Second, 7 * time.Second},
		{60 * time.Second, 29 * time.Second, 14500 * time.Millisecond},
	} {
		cfg := Config{TTL: c.ttl, MaxServerSkew: DefaultMaxServerSkew}
		if w, r := cfg.Window(), cfg.DefaultRenew(); w != c.window || r != c.renew {
			t.Errorf("TTL %v: window %v, renew %v; the doc says %v and %v", c.ttl, w, r, c.window, c.renew)
		}
	}
	if m := MinTTL(DefaultMaxServerSkew); m != 4*time.Second {
		t.Errorf("MinTTL = %v; the doc says 4s", m)
	}
}
