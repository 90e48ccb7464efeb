package locktest

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
)

// FencingEnv builds the world of the fencing scenarios (RunFencing).
type FencingEnv struct {
	// NewStore returns a fresh, empty store for one scenario.
	NewStore func(t *testing.T) lockstep.Store
	// NewLocker returns one process on store whose locks draw their fencing
	// tokens from fencing (nil: no fencing).
	NewLocker func(t *testing.T, store lockstep.Store, timing Timing, fencing *clock.Global) Locker
	// DrawBeside says the Lockers draw a token beside their claim
	// (queuelock.Options.Evidence EvidenceUse): a process paused in its
	// draw may then be paused in its claim's write too, and a TryLock may
	// fail with that write's error instead of ErrLost.
	DrawBeside bool
}

// RunFencing runs the fencing scenarios (docs/algorithms.md, section 5.2), each in a
// testing/synctest bubble on virtual time: tokens strictly increase across
// successive owners; a holder whose draw outlives its lease returns no lock;
// a failed draw fails the acquisition and leaves no cell behind.
func RunFencing(t *testing.T, env FencingEnv) {
	scenarios := []struct {
		name string
		fn   func(t *testing.T, env FencingEnv)
	}{
		{"TokensIncreaseAcrossOwners", tokensIncrease},
		{"WithoutFencingNotFenced", withoutFencingNotFenced},
		{"LockWhoseDrawOutlivesTheLeaseWaitsAndDrawsAgain", func(t *testing.T, env FencingEnv) { delayedDrawRefused(t, env, false) }},
		{"TryLockWhoseDrawOutlivesTheLeaseFails", func(t *testing.T, env FencingEnv) { delayedDrawRefused(t, env, true) }},
		{"FailedDrawFailsTryLockLeavingNothing", failedDrawFailsTryLock},
		{"LockRetriesAFailedDraw", lockRetriesFailedDraw},
		{"LockWhoseDrawsFailUntilCtxEndsLeavesNothing", lockDrawFailsUntilCtxEnds},
	}
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { s.fn(t, env) })
		})
	}
}

const fencedID = "fenced/1"

func newFencedLocker(t *testing.T, env FencingEnv, s lockstep.Store, g *clock.Global) Locker {
	t.Helper()
	l := env.NewLocker(t, s, short, g)
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

func newGlobal(t *testing.T, s lockstep.Store) *clock.Global {
	t.Helper()
	g, err := clock.NewGlobal(s, "", &clock.Local{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// token returns l's fencing token, failing the test if l carries none.
func token(t *testing.T, l lockstep.Lock) int64 {
	t.Helper()
	f, ok := l.(lockstep.Fenced)
	if !ok {
		t.Fatalf("lock %T does not implement lockstep.Fenced", l)
	}
	return f.Token()
}

func tokensIncrease(t *testing.T, env FencingEnv) {
	ctx := context.Background()
	s := env.NewStore(t)
	a, b := newFencedLocker(t, env, s, newGlobal(t, s)), newFencedLocker(t, env, s, newGlobal(t, s))
	var last int64
	for i := range 6 {
		l := []Locker{a, b}[i%2]
		acquire := l.Lock
		if i%3 == 1 {
			acquire = l.TryLock
		}
		h := ok(t)(acquire(ctx, fencedID))
		if tok := token(t, h); tok <= last {
			t.Fatalf("owner %d got token %d, not above its predecessor's %d", i, tok, last)
		} else {
			last = tok
		}
		if err := h.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// withoutFencingNotFenced: a Locker without fencing hands out locks that do
// not implement lockstep.Fenced, so a type assertion tells whether fencing
// is on (no zero token to misread as a token).
func withoutFencingNotFenced(t *testing.T, env FencingEnv) {
	ctx := context.Background()
	s := env.NewStore(t)
	h := ok(t)(newFencedLocker(t, env, s, nil).Lock(ctx, fencedID))
	if f, isFenced := h.(lockstep.Fenced); isFenced {
		t.Fatalf("lock %T without fencing implements lockstep.Fenced (token %d)", h, f.Token())
	}
	_ = h.Unlock(ctx)
}

// drawOutcome is what delayedDraw saw.
type drawOutcome struct {
	// Successor is the token of B, who took the lock while A's draw was
	// stalled past A's lease.
	Successor int64
	// Early is A's acquisition if it returned a lock as soon as its draw
	// completed, while B still held the lock; EarlyToken is its token.
	Early      bool
	EarlyToken int64
	// EarlyErr is A's error if it failed as soon as its draw completed.
	EarlyErr error
	// Final is the token A's Lock returned after B released (Lock only).
	Final int64
	// LeftBehind reports that B could not take the lock again after A's
	// acquisition failed and B released: A left a live cell.
	LeftBehind bool
}

// delayedDraw plays a holder A paused in the middle of its token draw: A
// claims the lock, its write of the global time stalls (and its renewals
// fail) until its lease has lapsed and its cells expired, B takes the lock
// meanwhile, then A's draw completes. try picks TryLock for A, else Lock.
// ExpectUncheckedTokenCaught runs it with the UncheckedToken knob on.
func delayedDraw(t *testing.T, env FencingEnv, try bool) drawOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := env.NewStore(t)
	gate := newDrawGate(s, fencedID)
	a := newFencedLocker(t, env, gate, newGlobal(t, gate))
	b := newFencedLocker(t, env, s, newGlobal(t, s))

	type result struct {
		l   lockstep.Lock
		err error
	}
	done := make(chan result, 1)
	gate.arm()
	go func() {
		acquire := a.Lock
		if try {
			acquire = a.TryLock
		}
		l, err := acquire(ctx, fencedID)
		done <- result{l, err}
	}()
	select {
	case <-gate.entered:
	case r := <-done:
		t.Fatalf("A's acquisition ended without drawing a token: %v, %v", r.l, r.err)
	}
	time.Sleep(short.TTL + 2*time.Second) // virtual: A's lease lapses, its cells expire
	hb, err := b.TryLock(ctx, fencedID)
	if err != nil {
		t.Fatalf("B could not take the lock whose holder's cells expired: %v", err)
	}
	var out drawOutcome
	out.Successor = token(t, hb)
	gate.release()
	synctest.Wait()
	var held []lockstep.Lock
	select {
	case r := <-done:
		if r.err != nil {
			out.EarlyErr = r.err
		} else {
			out.Early, out.EarlyToken = true, token(t, r.l)
			held = append(held, r.l)
		}
	default:
	}
	_ = hb.Unlock(ctx)
	if !try && !out.Early && out.EarlyErr == nil {
		r := <-done
		if r.err != nil {
			t.Fatalf("A's Lock after B released: %v", r.err)
		}
		out.Final = token(t, r.l)
		held = append(held, r.l)
	}
	for _, l := range held {
		_ = l.Unlock(ctx)
	}
	if !out.Early {
		if hb, err := b.TryLock(ctx, fencedID); err != nil {
			out.LeftBehind = true
		} else {
			_ = hb.Unlock(ctx)
		}
	}
	return out
}

func delayedDrawRefused(t *testing.T, env FencingEnv, try bool) {
	out := delayedDraw(t, env, try)
	if out.Early {
		t.Fatalf("A returned a lock with token %d while B held it with token %d: its draw outlived its lease", out.EarlyToken, out.Successor)
	}
	if out.LeftBehind {
		t.Fatal("A's refused acquisition left a cell behind: B could not lock again")
	}
	if try {
		if !errors.Is(out.EarlyErr, lockstep.ErrLost) && !(env.DrawBeside && errors.Is(out.EarlyErr, errPaused)) {
			t.Fatalf("A's TryLock = %v, want an error wrapping ErrLost (or, drawing beside the claim, the paused claim write's)", out.EarlyErr)
		}
		return
	}
	if out.EarlyErr != nil {
		t.Fatalf("A's Lock failed instead of waiting: %v", out.EarlyErr)
	}
	if out.Final <= out.Successor {
		t.Fatalf("A's token %d, drawn after B's, is not above B's %d", out.Final, out.Successor)
	}
}

// freeAtOnce checks that another process takes id at once: nothing of a
// failed acquisition is left in the store.
func freeAtOnce(t *testing.T, l Locker) {
	t.Helper()
	ctx := context.Background()
	h, err := l.TryLock(ctx, fencedID)
	if err != nil {
		t.Fatalf("TryLock after the failed acquisition = %v: it left a cell behind", err)
	}
	if err := h.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

func failedDrawFailsTryLock(t *testing.T, env FencingEnv) {
	ctx := context.Background()
	s := env.NewStore(t)
	gate := newDrawGate(s, fencedID)
	a := newFencedLocker(t, env, gate, newGlobal(t, gate))
	b := newFencedLocker(t, env, s, newGlobal(t, s))
	gate.fail(-1)
	h, err := a.TryLock(ctx, fencedID)
	if err == nil {
		t.Fatalf("TryLock returned a lock with token %d although the draw failed", token(t, h))
	}
	if !errors.Is(err, errDrawFailed) {
		t.Fatalf("TryLock = %v, want the draw's error wrapped", err)
	}
	freeAtOnce(t, b)
	gate.fail(0)
	h = ok(t)(a.TryLock(ctx, fencedID)) // the in-process turn was passed on too
	if token(t, h) <= 0 {
		t.Fatalf("token %d", token(t, h))
	}
	_ = h.Unlock(ctx)
}

func lockRetriesFailedDraw(t *testing.T, env FencingEnv) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := env.NewStore(t)
	gate := newDrawGate(s, fencedID)
	a := newFencedLocker(t, env, gate, newGlobal(t, gate))
	gate.fail(3)
	h := ok(t)(a.Lock(ctx, fencedID))
	if token(t, h) <= 0 {
		t.Fatalf("token %d after the draw was retried", token(t, h))
	}
	_ = h.Unlock(ctx)
}

func lockDrawFailsUntilCtxEnds(t *testing.T, env FencingEnv) {
	s := env.NewStore(t)
	gate := newDrawGate(s, fencedID)
	a := newFencedLocker(t, env, gate, newGlobal(t, gate))
	b := newFencedLocker(t, env, s, newGlobal(t, s))
	gate.fail(-1)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	h, err := a.Lock(ctx, fencedID)
	if err == nil {
		t.Fatalf("Lock returned a lock with token %d although every draw failed", token(t, h))
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock = %v, want an error wrapping ctx.Err()", err)
	}
	freeAtOnce(t, b)
}
