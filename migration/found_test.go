package migration

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Regression tests for defects the rollout property tests found
// (propertytests: the switching fleets and the controller-driven rollout).

// frozenClock reads a time the test sets; its sleepers wake only when their
// ctx ends, as if the process's background goroutines (lease watchdogs, the
// census watch) were never scheduled — a starved thread, or a pause of the
// whole process that has just ended.
type frozenClock struct{ now atomic.Int64 }

func (c *frozenClock) Now() int64     { return c.now.Load() }
func (c *frozenClock) Elapsed() int64 { return c.now.Load() }

func (c *frozenClock) Sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		<-ctx.Done()
	}
	return ctx.Err()
}

// A lock's Lost must check, itself, both deadlines it depends on: the
// algorithm's lease and the census heartbeat (a lease window after the last
// successful write). A channel that only a goroutine relaying the
// watchdogs' signals closed would let a holder resuming from a pause work
// past either (propertytests: "lease: ... expired without Lost()").
func TestLocker_LostChecksTheLeaseAndCensusDeadlinesItself(t *testing.T) {
	for _, c := range []struct {
		name         string
		lockTTL      time.Duration
		censusTTL    time.Duration
		expiresAfter time.Duration
		mode         lockstep.Mode
	}{
		// Windows: (TTL − 1s − MaxServerSkew 1s)/2.
		{"LeaseOfALegacyLock", 6 * time.Second, 60 * time.Second, 2 * time.Second, lockstep.ModeLegacy},
		{"LeaseOfACombinedLock", 6 * time.Second, 60 * time.Second, 2 * time.Second, lockstep.ModeCombined},
		{"CensusHeartbeat", 30 * time.Second, 6 * time.Second, 2 * time.Second, lockstep.ModeCombined},
	} {
		t.Run(c.name, func(t *testing.T) {
			early, late := lostAround(t, nil, c.mode, c.lockTTL, c.censusTTL, c.expiresAfter)
			if early {
				t.Fatal("lost before the deadline")
			}
			if !late {
				t.Fatalf("Lost still open %v after the lock was taken", c.expiresAfter)
			}
		})
	}
}

// lostAround takes a lock in mode on a frozen clock and reports whether
// Lost() was closed 1 ms before expiresAfter and 1 ms after it; a lock lost
// in time must then report ErrLost from Unlock.
func lostAround(t *testing.T, k *TestingKnobs, mode lockstep.Mode, lockTTL, censusTTL, expiresAfter time.Duration) (early, late bool) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		clk := &frozenClock{}
		clk.now.Store(model.DefaultStart)
		s := model.New(clk)
		l, err := New(s, flagOf(mode), &Options{Clock: clk, ProcessID: "p",
			Queue:     &queuelock.Options{TTL: lockTTL},
			Legacy:    &shadowlock.Options{TTL: lockTTL},
			CensusTTL: censusTTL, Host: "h", Version: "v", TestingKnobs: k,
		})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close(ctx)
		h, err := l.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		closed := func() bool {
			select {
			case <-h.Lost():
				return true
			default:
				return false
			}
		}
		clk.now.Add((expiresAfter - time.Millisecond).Microseconds())
		early = closed()
		clk.now.Add((2 * time.Millisecond).Microseconds())
		late = closed()
		err = h.Unlock(ctx)
		if late && !errors.Is(err, lockstep.ErrLost) {
			t.Fatalf("Unlock after loss = %v, want ErrLost", err)
		}
	})
	return early, late
}

// brokenClock cannot sleep: Sleep fails at once, as the simulator's clock
// does for a crashed process. It stops failing after a bound, so that a loop
// that spins on it shows up as a count rather than a hang.
type brokenClock struct {
	frozenClock
	sleeps atomic.Int64
}

func (c *brokenClock) Sleep(ctx context.Context, d time.Duration) error {
	if c.sleeps.Add(1) > 1000 {
		return c.frozenClock.Sleep(ctx, d)
	}
	return errors.New("test: clock cannot sleep")
}

// The census heartbeat stops when its clock fails to sleep, as every other
// loop of the library does, instead of spinning: a loop that ignored the
// error would run at once again, and keep the simulator's crashed processes
// running.
func TestLocker_HeartbeatStopsWhenTheClockCannotSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &brokenClock{}
		clk.now.Store(model.DefaultStart)
		l, err := New(model.New(clk), flagOf(lockstep.ModeLegacy), withIdentity(testOptions(1), clk, "p"))
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := clk.sleeps.Load(); n > 10 {
			t.Fatalf("heartbeat called Sleep %d times on a clock that cannot sleep", n)
		}
		_ = l.Close(context.Background())
	})
}

// deferringStore lets the next pass writes to the phase table through, then
// holds back the next hold ones: each fails as a timed-out write does
// (outcome unknown), and lands when the test says.
type deferringStore struct {
	lockstep.Store
	pass, hold atomic.Int32

	mu      sync.Mutex
	pending []func()
}

func (d *deferringStore) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if table == DefaultPhaseTable && d.pass.Add(-1) < 0 && d.hold.Add(-1) >= 0 {
		d.mu.Lock()
		d.pending = append(d.pending, func() { _ = d.Store.Put(context.Background(), table, row, cells...) })
		d.mu.Unlock()
		return fmt.Errorf("test: write held back: %w", lockstep.ErrUnknownOutcome)
	}
	return d.Store.Put(ctx, table, row, cells...)
}

// land applies the i-th write held back.
func (d *deferringStore) land(i int) {
	d.mu.Lock()
	f := d.pending[i]
	d.mu.Unlock()
	f()
}

// A Set that finds the phase already at its target must not report success
// while an intent an earlier Set wrote with an unknown outcome can still
// land over it. The rollout found it (seed 3161 of its seeded runs): a
// commit timed out, the retry's intent timed out, the next retry read the
// commit and returned nil, and the retry's intent then surfaced, leaving the
// phase pending:combined->legacy — so legacy-configured processes were
// refused, and Set(legacy) reported done.
func TestController_SetAlreadyAtTargetOutlivesItsOwnEarlierIntents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := &deferringStore{Store: newStore()}
		c, err := NewController(s, &ControllerOptions{Clock: &clock.Local{}})
		if err != nil {
			t.Fatal(err)
		}
		setPhase(t, c, lockstep.ModeCombined)

		// A: the intent lands, the commit is held back (0).
		s.pass.Store(1)
		s.hold.Store(1)
		if err := c.Set(ctx, lockstep.ModeLegacy); err == nil {
			t.Fatal("Set with a held-back commit succeeded")
		}
		// B: reads the intent and writes it again; held back too (1).
		s.pass.Store(0)
		s.hold.Store(1)
		if err := c.Set(ctx, lockstep.ModeLegacy); err == nil {
			t.Fatal("Set with a held-back intent succeeded")
		}
		s.land(0) // A's commit
		// C: reads legacy, committed.
		if err := c.Set(ctx, lockstep.ModeLegacy); err != nil {
			t.Fatal(err)
		}
		s.land(1) // B's intent, later than A's commit
		if p, err := c.Get(ctx); err != nil || p != (Phase{Mode: lockstep.ModeLegacy}) {
			t.Fatalf("after Set(legacy) returned nil, the phase reads %v (%v)", p, err)
		}
	})
}
