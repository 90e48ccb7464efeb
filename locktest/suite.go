package locktest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
)

// Timing is the lease timing a scenario asks a locker for.
type Timing struct {
	TTL   time.Duration
	Renew time.Duration
	Clock lockstep.Clock // nil: the locker's default (clock.Local)
}

// Locker is what the suite needs of a locker: a lockstep.Locker (whose
// Close the suite calls).
type Locker = lockstep.Locker

// Env builds the world a scenario runs in.
type Env struct {
	// NewStore returns a fresh, empty store (or a fresh keyspace of a shared
	// one) for one scenario. All lockers of the scenario share it.
	NewStore func(t *testing.T) lockstep.Store
	// NewLocker returns one "process" on store.
	NewLocker func(t *testing.T, store lockstep.Store, timing Timing) Locker
	// Virtual runs each scenario in a testing/synctest bubble, so the
	// production clock runs on fake time and TTLs pass instantly. A real
	// store must leave it false.
	Virtual bool
	// Scale divides iteration counts for slow (real) stores; 0 means 1.
	Scale int
}

// Run runs every scenario.
func Run(t *testing.T, env Env) {
	scenarios := []struct {
		name string
		fn   func(t *testing.T, env Env)
	}{
		{"SecondTryLockFailsUntilRelease", secondTryLockFails},
		{"DifferentIDsAreIndependent", differentIDsIndependent},
		{"TryLockFailsWhileLockHeld", tryLockFailsWhileLockHeld},
		{"LeaseKeptWellPastTTL", leaseKeptPastTTL},
		{"LeaseLostWhenRenewalStops", leaseLostWhenRenewalStops},
		{"LeaseLostAfterWallClockStepBack", leaseLostAfterWallClockStepBack},
		{"LeaseKeptAfterWallClockStepForward", leaseKeptAfterWallClockStepForward},
		{"CounterIncrementsAreExact", counterIncrements},
		{"UnlockIsIdempotent", unlockIdempotent},
		{"BadIDsRefused", badIDs},
		{"UnlockAfterLossReportsItOnce", unlockAfterLossReportsItOnce},
		{"ConcurrentUnlocksWaitForTheRelease", concurrentUnlocksWaitForTheRelease},
		{"FailedUnlockIsRetried", failedUnlockIsRetried},
		{"CancelledUnlockIsRetried", cancelledUnlockIsRetried},
		{"TryLockLoopsMakeProgress", tryLockLoopsMakeProgress},
	}
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			if env.Virtual {
				synctest.Test(t, func(t *testing.T) { s.fn(t, env) })
				return
			}
			s.fn(t, env)
		})
	}
}

var short = Timing{TTL: 4 * time.Second, Renew: 500 * time.Millisecond} // the smallest TTL accepted with the default MaxServerSkew

func newLocker(t *testing.T, env Env, s lockstep.Store, tm Timing) Locker {
	t.Helper()
	l := env.NewLocker(t, s, tm)
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// ok fails the test on an acquisition error: ok(t)(l.Lock(ctx, id)).
func ok(t *testing.T) func(lockstep.Lock, error) lockstep.Lock {
	return func(l lockstep.Lock, err error) lockstep.Lock {
		t.Helper()
		if err != nil {
			t.Fatalf("acquire: %v", err)
		}
		return l
	}
}

func secondTryLockFails(t *testing.T, env Env) {
	ctx := context.Background()
	s := env.NewStore(t)
	a, b := newLocker(t, env, s, short), newLocker(t, env, s, short)
	la := ok(t)(a.TryLock(ctx, "res"))
	if _, err := b.TryLock(ctx, "res"); !errors.Is(err, lockstep.ErrLocked) {
		t.Fatalf("second TryLock = %v, want ErrLocked", err)
	}
	if _, err := a.TryLock(ctx, "res"); !errors.Is(err, lockstep.ErrLocked) {
		t.Fatalf("TryLock from the holder's own locker = %v, want ErrLocked", err)
	}
	if err := la.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	lb := ok(t)(b.TryLock(ctx, "res"))
	if lb.ID() != "res" || lb.Owner() == la.Owner() {
		t.Fatalf("handle id %q owner %q (previous owner %q)", lb.ID(), lb.Owner(), la.Owner())
	}
	_ = lb.Unlock(ctx)
}

func differentIDsIndependent(t *testing.T, env Env) {
	ctx := context.Background()
	s := env.NewStore(t)
	a, b := newLocker(t, env, s, short), newLocker(t, env, s, short)
	la := ok(t)(a.TryLock(ctx, "x"))
	lb := ok(t)(b.TryLock(ctx, "y"))
	lc := ok(t)(a.Lock(ctx, "z"))
	for _, l := range []lockstep.Lock{la, lb, lc} {
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func tryLockFailsWhileLockHeld(t *testing.T, env Env) {
	ctx := context.Background()
	s := env.NewStore(t)
	a, b := newLocker(t, env, s, short), newLocker(t, env, s, short)
	la := ok(t)(a.Lock(ctx, "res"))
	if _, err := b.TryLock(ctx, "res"); !errors.Is(err, lockstep.ErrLocked) {
		t.Fatalf("TryLock while Lock held = %v, want ErrLocked", err)
	}
	_ = la.Unlock(ctx)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func leaseKeptPastTTL(t *testing.T, env Env) {
	ctx := context.Background()
	s := env.NewStore(t)
	a, b := newLocker(t, env, s, short), newLocker(t, env, s, short)
	la := ok(t)(a.Lock(ctx, "res"))
	sleep(ctx, 4*short.TTL) // four TTLs: the cells live only through renewal
	select {
	case <-la.Lost():
		t.Fatal("lease lost while the store was healthy")
	default:
	}
	if _, err := b.TryLock(ctx, "res"); !errors.Is(err, lockstep.ErrLocked) {
		t.Fatalf("TryLock after 4×TTL of renewed hold = %v, want ErrLocked", err)
	}
	if err := la.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// leaseLostWhenRenewalStops: a holder whose store fails after it acquired
// sees Lost() within its lease window, before another process acquires, and
// its Unlock reports the loss (clockstep.go, with no step).
func leaseLostWhenRenewalStops(t *testing.T, env Env) { leaseLostAfterWallClockStep(t, env, 0) }

func counterIncrements(t *testing.T, env Env) {
	const n = 4
	k := 25
	if env.Scale > 1 {
		k = max(5, k/env.Scale)
	}
	ctx := context.Background()
	s := env.NewStore(t)
	var (
		mu      sync.Mutex // only to let the race detector see the check, not for exclusion
		counter int
		inside  int
		wg      sync.WaitGroup
	)
	errs := make(chan error, n*k)
	for i := range n {
		l := newLocker(t, env, s, short)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range k {
				h, err := l.Lock(ctx, "counter")
				if err != nil {
					errs <- fmt.Errorf("process %d lock %d: %w", i, j, err)
					return
				}
				mu.Lock()
				inside++
				if inside != 1 {
					errs <- fmt.Errorf("%d holders at once", inside)
				}
				v := counter
				mu.Unlock()
				sleep(ctx, time.Millisecond) // read-modify-write spread over time
				mu.Lock()
				counter = v + 1
				inside--
				mu.Unlock()
				if err := h.Unlock(ctx); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if counter != n*k {
		t.Fatalf("counter = %d, want %d", counter, n*k)
	}
}

func unlockIdempotent(t *testing.T, env Env) {
	ctx := context.Background()
	s := env.NewStore(t)
	a := newLocker(t, env, s, short)
	la := ok(t)(a.Lock(ctx, "res"))
	if err := la.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := la.Unlock(ctx); err != nil {
		t.Fatalf("second Unlock = %v, want nil", err)
	}
	ok(t)(a.TryLock(ctx, "res")).Unlock(ctx)
}

func badIDs(t *testing.T, env Env) {
	ctx := context.Background()
	s := env.NewStore(t)
	a := newLocker(t, env, s, short)
	for _, id := range []string{"", string(make([]byte, lockstep.MaxIDLen+1)), "bad\x00id", "\xff\xfe"} {
		if _, err := a.Lock(ctx, id); !errors.Is(err, lockstep.ErrInvalidID) {
			t.Errorf("Lock(%q) = %v, want ErrInvalidID", id, err)
		}
		if _, err := a.TryLock(ctx, id); !errors.Is(err, lockstep.ErrInvalidID) {
			t.Errorf("TryLock(%q) = %v, want ErrInvalidID", id, err)
		}
	}
}

// Prefixed returns a store that prefixes every row key with prefix, so that
// scenarios sharing one real keyspace never see each other's cells.
//
// When s is a lockstep.Mutator, so is the Store Prefixed returns.
func Prefixed(s lockstep.Store, prefix string) lockstep.Store {
	if m, ok := s.(lockstep.Mutator); ok {
		return prefixedMutator{prefixed{s, prefix}, m}
	}
	return prefixed{s, prefix}
}

// prefixedMutator is prefixed over a lockstep.Mutator.
type prefixedMutator struct {
	prefixed
	m lockstep.Mutator
}

func (p prefixedMutator) PutDelete(ctx context.Context, table, row string, ts int64, columns []string, cells ...lockstep.Cell) error {
	return p.m.PutDelete(ctx, table, p.prefix+row, ts, columns, cells...)
}

type prefixed struct {
	lockstep.Store
	prefix string
}

func (p prefixed) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	return p.Store.Put(ctx, table, p.prefix+row, cells...)
}

func (p prefixed) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	return p.Store.Delete(ctx, table, p.prefix+row, ts, columns...)
}

func (p prefixed) Read(ctx context.Context, table, row string, s lockstep.Slice) ([]lockstep.Cell, error) {
	return p.Store.Read(ctx, table, p.prefix+row, s)
}
