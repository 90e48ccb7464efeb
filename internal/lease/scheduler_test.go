package lease

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

func newScheduler(t testing.TB, c lockstep.Clock, opts *Options) *Scheduler {
	t.Helper()
	s, err := NewScheduler(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func ok(context.Context) error { return nil }

// schedulerGoroutines counts the goroutines of this package's schedulers in
// the whole process: their loops and their renewals in flight.
func schedulerGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return bytes.Count(buf, []byte("lease.(*Scheduler).run(")) + bytes.Count(buf, []byte("lease.(*Scheduler).renewal("))
}

func TestNewScheduler_RefusesNegativeMaxInFlight(t *testing.T) {
	_, err := NewScheduler(&clock.Local{}, &Options{MaxInFlight: -1})
	if !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Fatalf("NewScheduler(MaxInFlight -1) = %v, want ErrInvalidConfig", err)
	}
}

// Many held leases cost one goroutine at rest, and none once stopped.
func TestScheduler_ManyLeasesOneGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		s := newScheduler(t, c, nil)
		var renewals atomic.Int64
		leases := make([]*Lease, 1000)
		for i := range leases {
			leases[i] = s.Start(cfg, Stamp(c), func(context.Context) error { renewals.Add(1); return nil }, Hooks{})
		}
		time.Sleep(10*time.Second + cfg.Renew/2)
		synctest.Wait()
		if n := schedulerGoroutines(); n != 1 {
			t.Fatalf("%d goroutines for 1,000 leases at rest, want 1", n)
		}
		if n := renewals.Load(); n < 9_000 || n > 10_000 {
			t.Fatalf("%d renewals of 1,000 leases over 10s at 1s, want 9,000 to 10,000", n)
		}
		for _, l := range leases {
			if l.IsLost() {
				t.Fatal("a lease was lost while renewals succeed")
			}
			l.Stop()
		}
		synctest.Wait()
		if n := schedulerGoroutines(); n != 0 {
			t.Fatalf("%d goroutines after every lease stopped, want 0", n)
		}
	})
}

// A store that hangs fills every slot; the deadlines still close Lost on
// time, and never more than MaxInFlight renewals run at once.
func TestScheduler_DeadlinesCloseLostWhileSlotsAreFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		s := newScheduler(t, c, &Options{MaxInFlight: 2})
		var inFlight, most atomic.Int64
		hang := func(ctx context.Context) error {
			n := inFlight.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			<-ctx.Done()
			inFlight.Add(-1)
			return ctx.Err()
		}
		start := time.Now()
		leases := make([]*Lease, 5)
		for i := range leases {
			leases[i] = s.Start(cfg, Stamp(c), hang, Hooks{})
		}
		for i, l := range leases {
			<-l.lost // the channel itself: only the scheduler closes it here
			// Stamps are whole microseconds: the launches 1ns apart may move
			// the scheduler's wake-up by less than one.
			if got := time.Since(start); got < cfg.Window() || got >= cfg.Window()+time.Microsecond {
				t.Fatalf("lease %d lost after %v, want the window, %v (to the microsecond)", i, got, cfg.Window())
			}
		}
		if m := most.Load(); m != 2 {
			t.Fatalf("at most %d renewals in flight at once, want 2 (the bound)", m)
		}
		for _, l := range leases {
			l.Stop()
		}
	})
}

// A lease whose renewal is due before the one the scheduler sleeps for
// wakes it.
func TestScheduler_EarlierEntryWakesTheScheduler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		s := newScheduler(t, c, nil)
		slow := Config{TTL: 30 * time.Second, Renew: 7 * time.Second, MaxServerSkew: time.Second}
		a := s.Start(slow, Stamp(c), ok, Hooks{})
		synctest.Wait() // the scheduler sleeps until a's renewal, 7s away
		start := time.Now()
		renewed := make(chan time.Duration, 1)
		b := s.Start(cfg, Stamp(c), func(context.Context) error {
			select {
			case renewed <- time.Since(start):
			default:
			}
			return nil
		}, Hooks{})
		if got := <-renewed; got != cfg.Renew {
			t.Fatalf("first renewal of the later lease after %v, want %v", got, cfg.Renew)
		}
		a.Stop()
		b.Stop()
	})
}

// Stop returns only once the renewal in flight has returned, even one that
// ignores its context.
func TestScheduler_StopWaitsForTheRenewalInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		s := newScheduler(t, c, nil)
		started, release := make(chan struct{}), make(chan struct{})
		l := s.Start(cfg, Stamp(c), func(context.Context) error {
			close(started)
			<-release
			return nil
		}, Hooks{})
		<-started
		var stopped atomic.Bool
		go func() { l.Stop(); stopped.Store(true) }()
		synctest.Wait()
		if stopped.Load() {
			t.Fatal("Stop returned while a renewal was in flight")
		}
		close(release)
		synctest.Wait()
		if !stopped.Load() {
			t.Fatal("Stop did not return after the renewal did")
		}
	})
}

// Close ends what is left: the leases are lost, the goroutine is gone, and a
// lease started afterwards is lost at once.
func TestScheduler_CloseLosesLeftoverLeases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		s, err := NewScheduler(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		var hooked atomic.Int64
		l := s.Start(cfg, Stamp(c), ok, Hooks{Lost: func() { hooked.Add(1) }})
		s.Close()
		if !l.IsLost() || hooked.Load() != 1 {
			t.Fatalf("after Close: lost %v, Lost hook called %d times; want lost, once", l.IsLost(), hooked.Load())
		}
		synctest.Wait()
		if n := schedulerGoroutines(); n != 0 {
			t.Fatalf("%d goroutines after Close, want 0", n)
		}
		if !s.Start(cfg, Stamp(c), ok, Hooks{}).IsLost() {
			t.Fatal("a lease started after Close is not lost")
		}
		l.Stop()
		s.Close()
	})
}

// Renewals due at the same instant run one after another in the order of
// Start, each round: the order a simulator sees is a function of the inputs.
func TestScheduler_RenewalsDueTogetherRunInStartOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		s := newScheduler(t, c, nil)
		var mu sync.Mutex
		var order []int
		leases := make([]*Lease, 4)
		for i := range leases {
			leases[i] = s.Start(cfg, Stamp(c), func(context.Context) error {
				mu.Lock()
				defer mu.Unlock()
				order = append(order, i)
				return nil
			}, Hooks{})
		}
		time.Sleep(3*cfg.Renew + cfg.Renew/2)
		for _, l := range leases {
			l.Stop()
		}
		want := []int{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}
		if !slices.Equal(order, want) {
			t.Fatalf("renewal order %v, want %v", order, want)
		}
	})
}

// A scheduler that wakes late (its process was paused) finds both the
// renewal and the deadline of a lease past: it drops the lease and never
// sends a renewal after the deadline.
func TestScheduler_LateWakeUpDropsRatherThanRenews(t *testing.T) {
	c := model.NewManualClock(0)
	s := newScheduler(t, c, nil)
	var renewals atomic.Int64
	lost := make(chan struct{})
	s.Start(cfg, Stamp(c), func(context.Context) error { renewals.Add(1); return nil }, Hooks{Lost: func() { close(lost) }})
	c.BlockUntil(1) // the scheduler sleeps until the renewal
	c.Advance(cfg.Window() + time.Second)
	<-lost // declared by the scheduler: nobody else looks
	if n := renewals.Load(); n != 0 {
		t.Fatalf("%d renewals sent after the deadline, want 0", n)
	}
}

// frozenClock is a clock whose time a test sets without waking sleepers:
// a scheduler that has not got round to a deadline yet.
type frozenClock struct{ now atomic.Int64 }

func (c *frozenClock) Now() int64     { return c.now.Load() }
func (c *frozenClock) Elapsed() int64 { return c.now.Load() }
func (c *frozenClock) Sleep(ctx context.Context, d time.Duration) error {
	<-ctx.Done()
	return ctx.Err()
}

// Lost checks the deadline itself: a holder that looks at it never works
// past the deadline, even while the scheduler sleeps through it.
func TestLease_LostClosesWhileTheSchedulerSleepsThroughTheDeadline(t *testing.T) {
	c := &frozenClock{}
	l := newScheduler(t, c, nil).Start(cfg, 0, ok, Hooks{})
	c.now.Store(cfg.Window().Microseconds())
	select {
	case <-l.Lost():
	default:
		t.Fatal("Lost() open at the deadline while the scheduler sleeps")
	}
	l.Stop()
}

// A renewal that succeeded but has not finished yet (its Renewed hook still
// runs) when its old deadline comes has moved the deadline: the scheduler
// re-files it by the new one and does not start a second renewal of the
// lease beside the first.
func TestScheduler_OneRenewalPerLeaseAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		s := newScheduler(t, c, nil)
		var calls atomic.Int64
		release := make(chan struct{})
		var first atomic.Bool
		l := s.Start(cfg, Stamp(c), func(context.Context) error { calls.Add(1); return nil },
			Hooks{Renewed: func(error) {
				if first.CompareAndSwap(false, true) {
					<-release
				}
			}})
		defer l.Stop()
		defer close(release)
		time.Sleep(cfg.Window() + cfg.Renew/2) // past the first deadline, the first renewal's hook still blocked
		if n := calls.Load(); n != 1 {
			t.Fatalf("%d renewals while the first had not finished, want 1", n)
		}
		if l.IsLost() {
			t.Fatal("lease lost although its renewal succeeded before the deadline")
		}
	})
}

// A slow acquisition starts its lease well after its winning write was sent:
// the first renewal must be due Renew after that send, not after Start, or an
// acquisition slower than Window − Renew loses a healthy lease before its
// first renewal (the robustness suite, on a real node: a fault-free fleet
// lost a lease whose Lock took 0.5s at TTL 4s).
func TestScheduler_FirstRenewalCountsFromTheWinningWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		s := newScheduler(t, c, nil)
		late := (cfg.Window() - cfg.Renew + 100*time.Millisecond).Microseconds()
		l := s.Start(cfg, Stamp(c)-late, func(context.Context) error { return nil }, Hooks{})
		time.Sleep(10 * time.Second)
		select {
		case <-l.Lost():
			t.Fatal("lease lost while every renewal succeeds: the first renewal came after the deadline")
		default:
		}
		l.Stop()
	})
}

// FirstRenew brings the first renewal forward, and only the first: the
// next comes Renew after it.
func TestScheduler_FirstRenewIsTheFirstRenewalOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		s := newScheduler(t, c, nil)
		early := cfg
		early.FirstRenew = 50 * time.Millisecond
		start := time.Now()
		var at []time.Duration
		l := s.Start(early, Stamp(c), func(context.Context) error {
			at = append(at, time.Since(start))
			return nil
		}, Hooks{})
		time.Sleep(early.FirstRenew + 2*early.Renew + time.Millisecond)
		l.Stop()
		want := []time.Duration{early.FirstRenew, early.FirstRenew + early.Renew, early.FirstRenew + 2*early.Renew}
		if !slices.Equal(at, want) {
			t.Fatalf("renewals at %v, want %v", at, want)
		}
	})
}
