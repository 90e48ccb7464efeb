package locktest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/model"
)

// leaseLostAfterWallClockStepBack: a holder whose wall clock is stepped back
// by 2×TTL just after it acquired (NTP, an operator), and whose store then
// fails, must see Lost() within its lease window of elapsed time: before its
// cells can expire, and before anyone else acquires. Earlier versions
// measured lease deadlines on a wall clock that repeats its last value after
// a step back, so Lost() stayed open for the length of the step while the
// cells expired on the servers and another process acquired (the safety
// issue's defect 2).
func leaseLostAfterWallClockStepBack(t *testing.T, env Env) {
	leaseLostAfterWallClockStep(t, env, -2*short.TTL)
}

// leaseKeptAfterWallClockStepForward: a wall clock stepped forward by 2×TTL
// must not end a lease whose renewals succeed. A lease deadline kept on the
// wall clock would be past at once, so one TTL after the step shows it; the
// TTL is twice the smallest, so that the lease window (3 s) holds three
// renewals and one renewal slowed by a loaded machine cannot end it (with
// the smallest, a 1 s window and renewals every 500 ms, one did, once, in
// a CI run at load 8).
func leaseKeptAfterWallClockStepForward(t *testing.T, env Env) {
	ctx := context.Background()
	s := env.NewStore(t)
	stepped := &clock.Stepped{Base: &clock.Local{}}
	kept := Timing{TTL: 2 * short.TTL, Renew: 2 * short.Renew}
	tm := kept
	tm.Clock = stepped
	a, b := newLocker(t, env, s, tm), newLocker(t, env, s, kept)
	la := ok(t)(a.Lock(ctx, "res"))
	stepped.Step(2 * kept.TTL)
	sleep(ctx, kept.TTL)
	select {
	case <-la.Lost():
		t.Fatal("Lost() closed after a wall-clock step forward, with renewals succeeding")
	default:
	}
	if _, err := b.TryLock(ctx, "res"); !errors.Is(err, lockstep.ErrLocked) {
		t.Fatalf("TryLock beside a renewed hold = %v, want ErrLocked", err)
	}
	if err := la.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

func leaseLostAfterWallClockStep(t *testing.T, env Env, step time.Duration) {
	ctx := context.Background()
	s := env.NewStore(t)
	faulty, err := model.NewFaulty(s, model.FaultConfig{FailBefore: 1})
	if err != nil {
		t.Fatal(err)
	}
	faulty.SetEnabled(false)
	stepped := &clock.Stepped{Base: &clock.Local{}}
	tm := short
	tm.Clock = stepped
	a, b := newLocker(t, env, faulty, tm), newLocker(t, env, s, short)
	start := stepped.Elapsed()
	la := ok(t)(a.Lock(ctx, "res"))
	stepped.Step(step)
	faulty.SetEnabled(true) // a's renewals stop landing
	var lostAfter time.Duration
	var lostAt time.Time
	done := make(chan struct{})
	go func() {
		<-la.Lost()
		lostAfter, lostAt = time.Duration(stepped.Elapsed()-start)*time.Microsecond, time.Now()
		close(done)
	}()
	wctx, cancel := context.WithTimeout(ctx, 10*short.TTL)
	defer cancel()
	lb, err := b.Lock(wctx, "res")
	if err != nil {
		t.Fatalf("b could not acquire after a's cells expired: %v", err)
	}
	acquiredAt := time.Now()
	select {
	case <-done:
	case <-wctx.Done():
		t.Fatalf("a's Lost() still open after b acquired, its wall clock stepped by %v", step)
	}
	if !lostAt.Before(acquiredAt) {
		t.Fatalf("a's Lost() closed at %v, not before b acquired at %v (wall clock stepped by %v)", lostAt, acquiredAt, step)
	}
	// The lease counts from the send of a's last successful write, at or
	// after start; slack covers a real store's round trips.
	window := lease.Config{TTL: short.TTL, MaxServerSkew: lease.DefaultMaxServerSkew}.Window()
	if limit := window + short.Renew; lostAfter > limit {
		t.Fatalf("a's Lost() closed %v after it began to lock, over the window %v (+ a renewal interval); wall clock stepped by %v", lostAfter, window, step)
	}
	if err := la.Unlock(ctx); !errors.Is(err, lockstep.ErrLost) {
		t.Fatalf("Unlock after loss = %v, want ErrLost", err)
	}
	_ = lb.Unlock(ctx)
}
