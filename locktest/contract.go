package locktest

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
)

// The scenarios of this file hold every locker to lockstep.Lock's Unlock
// contract and lockstep.Locker's TryLock contract.

// unlockAfterLossReportsItOnce: the first Unlock after a loss returns
// ErrLost, a second one nil.
func unlockAfterLossReportsItOnce(t *testing.T, env Env) {
	ctx := context.Background()
	s := env.NewStore(t)
	faulty, err := model.NewFaulty(s, model.FaultConfig{FailBefore: 1})
	if err != nil {
		t.Fatal(err)
	}
	faulty.SetEnabled(false)
	a := newLocker(t, env, faulty, short)
	la := ok(t)(a.Lock(ctx, "res"))
	faulty.SetEnabled(true) // renewals stop landing
	<-la.Lost()
	faulty.SetEnabled(false)
	if err := la.Unlock(ctx); !errors.Is(err, lockstep.ErrLost) {
		t.Fatalf("first Unlock after loss = %v, want ErrLost", err)
	}
	if err := la.Unlock(ctx); err != nil {
		t.Fatalf("second Unlock after loss = %v, want nil", err)
	}
}

// concurrentUnlocksWaitForTheRelease: while one Unlock's delete is held in
// the store, no other Unlock of the same lock returns.
func concurrentUnlocksWaitForTheRelease(t *testing.T, env Env) {
	const n = 3
	ctx := context.Background()
	s := env.NewStore(t)
	gate := newDeleteGate(s)
	a, b := newLocker(t, env, gate, short), newLocker(t, env, s, short)
	la := ok(t)(a.Lock(ctx, "res"))
	gate.arm()
	var (
		opened atomic.Bool
		wg     sync.WaitGroup
	)
	early := make(chan int, n)
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			err := la.Unlock(ctx)
			if !opened.Load() {
				early <- i
			}
			errs <- err
		})
	}
	<-gate.entered
	if env.Virtual {
		// Every other caller is now blocked: in the delete, or waiting for
		// it, or returned. (A real store runs without the bubble; there the
		// check is weaker, as the callers may not have started yet.)
		synctest.Wait()
	}
	opened.Store(true)
	close(gate.open)
	wg.Wait()
	close(early)
	close(errs)
	for i := range early {
		t.Errorf("Unlock call %d of %d returned while the release's delete was still held in the store", i, n)
	}
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Unlock = %v, want nil", err)
		}
	}
	tryAfterRelease(t, b)
}

// failedUnlockIsRetried: an Unlock whose delete failed returns the error
// (unless it sent that delete again itself and it succeeded, as a combined
// lock does for its in-flight shadow delete); the next Unlock sends that
// delete again, and only that one, and leaves nothing behind. Each delete of
// the release is failed in turn (a combined lock sends two or three).
func failedUnlockIsRetried(t *testing.T, env Env) {
	ctx := context.Background()
	s := env.NewStore(t)
	f := &failDeletes{Store: s}
	a, b := newLocker(t, env, f, short), newLocker(t, env, s, short)
	for which := 1; ; which++ {
		la := ok(t)(a.Lock(ctx, "res"))
		f.reset(which)
		err := la.Unlock(ctx)
		if _, failed := f.count(); failed == 0 { // the release sent fewer deletes than which
			if which == 1 {
				t.Fatal("Unlock sent no delete")
			}
			if err != nil {
				t.Fatalf("Unlock with no delete failed = %v, want nil", err)
			}
			return
		}
		if err == nil {
			// The call sent the failed delete again itself and it succeeded
			// (a combined lock's shadow delete, sent while the lock was held
			// and waited for by Unlock, is retried at once): nothing is
			// still wrong, so nothing is reported, and the lock is free.
			if n, _ := f.count(); n <= which {
				t.Fatalf("Unlock whose delete %d failed = nil, and it sent no delete after it", which)
			}
			tryAfterRelease(t, b)
			continue
		}
		if !errors.Is(err, errDeleteFailed) {
			t.Fatalf("Unlock whose delete %d failed = %v, want that error", which, err)
		}
		f.reset(0)
		if err := la.Unlock(ctx); err != nil {
			t.Fatalf("Unlock retrying failed delete %d = %v, want nil", which, err)
		}
		if n, _ := f.count(); n != 1 {
			t.Fatalf("Unlock retrying failed delete %d sent %d deletes, want 1: only the failed one again", which, n)
		}
		if err := la.Unlock(ctx); err != nil {
			t.Fatalf("Unlock after the retry succeeded = %v, want nil", err)
		}
		if n, _ := f.count(); n != 1 {
			t.Fatalf("Unlock after the retry succeeded sent %d more deletes, want none", n-1)
		}
		tryAfterRelease(t, b)
	}
}

// cancelledUnlockIsRetried: an Unlock with a spent ctx returns ctx's error;
// the next Unlock releases the lock.
func cancelledUnlockIsRetried(t *testing.T, env Env) {
	ctx := context.Background()
	s := env.NewStore(t)
	a, b := newLocker(t, env, s, short), newLocker(t, env, s, short)
	la := ok(t)(a.Lock(ctx, "res"))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := la.Unlock(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Unlock with a cancelled ctx = %v, want an error wrapping context.Canceled", err)
	}
	if err := la.Unlock(ctx); err != nil {
		t.Fatalf("Unlock retried with a live ctx = %v, want nil", err)
	}
	tryAfterRelease(t, b)
}

// tryAfterRelease checks that no live cell of a released lock is left: l,
// another process, takes and releases "res" at once.
func tryAfterRelease(t *testing.T, l Locker) {
	t.Helper()
	ctx := context.Background()
	h, err := l.TryLock(ctx, "res")
	if err != nil {
		t.Fatalf("TryLock from another process after the release = %v: a cell of the released lock is still live", err)
	}
	if err := h.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// tryLockLoopsMakeProgress: processes calling TryLock in a loop on one id,
// in step with each other (every request takes the same virtual
// millisecond), each acquire within a bound: a merely concurrent attempt is
// not reported as ErrLocked until it has been retried.
func tryLockLoopsMakeProgress(t *testing.T, env Env) {
	const n = 4
	bound := 20 * short.TTL
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	s := env.NewStore(t)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		st := s
		if env.Virtual {
			f, err := model.NewFaulty(s, model.FaultConfig{MinLatency: time.Millisecond, MaxLatency: time.Millisecond, Clock: &clock.Local{}})
			if err != nil {
				t.Fatal(err)
			}
			st = f
		}
		l := newLocker(t, env, st, short)
		wg.Go(func() {
			for tries := 1; ; tries++ {
				h, err := l.TryLock(ctx, "res")
				switch {
				case err == nil:
					if err := h.Unlock(context.Background()); err != nil {
						errs <- err
					}
					return
				case ctx.Err() != nil:
					errs <- fmt.Errorf("process %d: no TryLock succeeded within %v (%d tries): %w", i, bound, tries, err)
					return
				case !errors.Is(err, lockstep.ErrLocked):
					errs <- fmt.Errorf("process %d: TryLock: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
