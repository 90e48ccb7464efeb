package migration

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// phaseStamp returns the phase cell's value and timestamp.
func phaseStamp(t *testing.T, s lockstep.Store) (string, int64) {
	t.Helper()
	cs, err := s.Read(context.Background(), DefaultPhaseTable, phaseRow, lockstep.Slice{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		return "", 0
	}
	return string(cs[0].Value), cs[0].Timestamp
}

func TestController_MovesOneStepAtATimeBothWays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		c := newController(t, s, 0)
		if p, err := c.Get(ctx); err != nil || p != (Phase{Mode: lockstep.ModeLegacy}) {
			t.Fatalf("initial phase %v, %v; want legacy", p, err)
		}
		for _, m := range []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew, lockstep.ModeNew, lockstep.ModeCombined, lockstep.ModeLegacy} {
			if err := c.Set(ctx, m); err != nil {
				t.Fatalf("Set(%v): %v", m, err)
			}
			if p, _ := c.Get(ctx); p != (Phase{Mode: m}) {
				t.Fatalf("after Set(%v): phase %v", m, p)
			}
		}
	})
}

func TestController_RefusesToSkipCombinedWritingNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		c := newController(t, s, 0)
		for _, tc := range []struct{ path []lockstep.Mode }{{nil}, {[]lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew}}} {
			setPhase(t, c, tc.path...)
			from, _ := c.Get(ctx)
			to := lockstep.ModeNew
			if from.Mode == lockstep.ModeNew {
				to = lockstep.ModeLegacy
			}
			v0, ts0 := phaseStamp(t, s)
			err := c.Set(ctx, to)
			var me *MoveError
			if !errors.Is(err, lockstep.ErrIncompatibleMode) || !errors.As(err, &me) || !strings.Contains(err.Error(), "one step") {
				t.Fatalf("%v -> %v: %v", from, to, err)
			}
			t.Log(err)
			if v, ts := phaseStamp(t, s); v != v0 || ts != ts0 {
				t.Fatalf("refused move wrote the phase cell: %q@%d -> %q@%d", v0, ts0, v, ts)
			}
		}
		if err := c.Set(ctx, lockstep.ModeUnknown); !errors.Is(err, lockstep.ErrInvalidMode) {
			t.Fatalf("Set(unknown) = %v", err)
		}
	})
}

func TestController_RefusesNewWhileLegacyIsInUseNamingTheProcesses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		c := newController(t, s, 0)
		setPhase(t, c, lockstep.ModeCombined)
		newProcess(t, s, "configured-legacy", flagOf(lockstep.ModeLegacy))
		flip := flagOf(lockstep.ModeLegacy)
		holder := newProcess(t, s, "holds-legacy", flip)
		h, err := holder.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		flip.set(lockstep.ModeCombined) // switched, but still holds a legacy lock
		newProcess(t, s, "fine", flagOf(lockstep.ModeCombined))
		time.Sleep(testCensusTTL / 3)
		synctest.Wait()

		err = c.Set(ctx, lockstep.ModeNew)
		var me *MoveError
		if !errors.Is(err, lockstep.ErrIncompatibleMode) || !errors.As(err, &me) {
			t.Fatalf("Set(new) = %v, want a MoveError", err)
		}
		msg := err.Error()
		t.Log(msg)
		if !strings.Contains(msg, "configured-legacy") || !strings.Contains(msg, "holds-legacy") || strings.Contains(msg, "fine") ||
			!strings.Contains(msg, "holds 1 legacy lock") {
			t.Fatalf("error does not name exactly the blockers: %s", msg)
		}
		if p, _ := c.Get(ctx); p != (Phase{Mode: lockstep.ModeCombined}) {
			t.Fatalf("after the refusal the phase is %v, want combined", p)
		}
		_ = h.Unlock(ctx)
	})
}

func TestController_RefusesLegacyWhileNewIsInUseNamingTheProcesses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		c := newController(t, s, 0)
		setPhase(t, c, lockstep.ModeCombined, lockstep.ModeNew)
		flip := flagOf(lockstep.ModeNew)
		p := newProcess(t, s, "holds-new", flip)
		h, err := p.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		flip.set(lockstep.ModeCombined)
		time.Sleep(testCensusTTL / 3)
		synctest.Wait()
		if err := c.Set(ctx, lockstep.ModeCombined); !errors.Is(err, lockstep.ErrIncompatibleMode) || !strings.Contains(err.Error(), "holds-new") {
			t.Fatalf("Set(combined) with a new lock held = %v", err)
		} else {
			t.Log(err)
		}
		_ = h.Unlock(ctx)
		time.Sleep(testCensusTTL / 30)
		synctest.Wait()
		setPhase(t, c, lockstep.ModeCombined)
		// A process configured new blocks the way to legacy, too.
		flip.set(lockstep.ModeNew)
		time.Sleep(testCensusTTL / 3)
		synctest.Wait()
		if err := c.Set(ctx, lockstep.ModeLegacy); !errors.Is(err, lockstep.ErrIncompatibleMode) || !strings.Contains(err.Error(), "holds-new") {
			t.Fatalf("Set(legacy) with a process configured new = %v", err)
		}
	})
}

// The census write precedes the phase read, and the intent precedes the
// census read that decides: an acquisition racing a move either shows up in
// the census or sees the intent. With random store latency, over many interleavings, a
// legacy acquisition and a move to new never both succeed.
func TestController_RacingLegacyAcquisitionAndMoveToNewNeverBothSucceed(t *testing.T) {
	outcomes := map[string]int{}
	for seed := range uint64(40) {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s, err := model.NewFaulty(newStore(), model.FaultConfig{MaxLatency: 3 * time.Millisecond, Clock: &clock.Local{},
				Rand: rand.New(rand.NewPCG(seed, 1))})
			if err != nil {
				t.Fatal(err)
			}
			c := newController(t, s, 0)
			setPhase(t, c, lockstep.ModeCombined)
			// The racer runs combined until its flag drifts to legacy as
			// the move starts: the Controller's census read before the
			// intent may or may not see it, the one after must.
			flag := flagOf(lockstep.ModeCombined)
			l := newProcess(t, s, "racer", flag)
			time.Sleep(time.Duration(seed%8) * time.Millisecond)
			var wg sync.WaitGroup
			var lockErr, setErr error
			wg.Go(func() {
				flag.set(lockstep.ModeLegacy)
				var h lockstep.Lock
				if h, lockErr = l.Lock(ctx, "id"); lockErr == nil {
					_ = h.Unlock(ctx)
				}
			})
			wg.Go(func() { setErr = c.Set(ctx, lockstep.ModeNew) })
			wg.Wait()
			switch {
			case lockErr == nil && setErr == nil:
				t.Fatal("a legacy lock was taken and the phase moved to new")
			case lockErr != nil && !errors.Is(lockErr, lockstep.ErrIncompatibleMode):
				t.Fatalf("Lock: %v", lockErr)
			case setErr != nil && !errors.Is(setErr, lockstep.ErrIncompatibleMode):
				t.Fatalf("Set: %v", setErr)
			}
			outcomes[fmt.Sprintf("lock ok %v, move ok %v", lockErr == nil, setErr == nil)]++
		})
	}
	t.Logf("outcomes: %v", outcomes)
	if len(outcomes) < 2 {
		t.Fatalf("the interleavings never varied: %v", outcomes)
	}
}

func TestController_DrainWaitsForAPhaseFlagFleetToFollow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		c := newController(t, s, 5*time.Second)
		setPhase(t, c, lockstep.ModeCombined, lockstep.ModeNew)
		pf, err := NewPhaseFlag(s, &PhaseFlagOptions{Cache: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		l := newProcess(t, s, "follower", pf)
		h, err := l.Lock(ctx, "id")
		if err != nil || h.Mode() != lockstep.ModeNew {
			t.Fatalf("lock %v, %v", h, err)
		}
		var wg sync.WaitGroup
		wg.Go(func() {
			time.Sleep(time.Second)
			_ = h.Unlock(ctx) // the new-mode lock ends while the controller drains
		})
		if err := c.Set(ctx, lockstep.ModeCombined); err != nil {
			t.Fatalf("Set(combined) with drain: %v", err)
		}
		wg.Wait()
		h, err = l.Lock(ctx, "id")
		if err != nil || h.Mode() != lockstep.ModeCombined {
			t.Fatalf("after the move: %v, %v", h, err)
		}
		_ = h.Unlock(ctx)
	})
}

// A controller that died between intent and commit leaves the phase pending;
// the next Set either finishes the move or abandons it, and refuses any
// other target.
func TestController_FinishesOrAbandonsAPendingMoveLeftBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		c := newController(t, s, 0)
		setPhase(t, c, lockstep.ModeCombined)
		pending := Phase{Mode: lockstep.ModeCombined, Target: lockstep.ModeNew}
		if err := writePhase(ctx, s, DefaultPhaseTable, pending, time.Now().UnixMicro()+1e6); err != nil {
			t.Fatal(err)
		}
		if err := c.Set(ctx, lockstep.ModeLegacy); !errors.Is(err, lockstep.ErrIncompatibleMode) || !strings.Contains(err.Error(), pending.String()) {
			t.Fatalf("Set(legacy) during %v = %v", pending, err)
		}
		if err := c.Set(ctx, lockstep.ModeCombined); err != nil {
			t.Fatalf("abandoning: %v", err)
		}
		if p, _ := c.Get(ctx); p != (Phase{Mode: lockstep.ModeCombined}) {
			t.Fatalf("after abandoning: %v", p)
		}
		if err := writePhase(ctx, s, DefaultPhaseTable, pending, time.Now().UnixMicro()+2e6); err != nil {
			t.Fatal(err)
		}
		if err := c.Set(ctx, lockstep.ModeNew); err != nil {
			t.Fatalf("finishing: %v", err)
		}
		if p, _ := c.Get(ctx); p != (Phase{Mode: lockstep.ModeNew}) {
			t.Fatalf("after finishing: %v", p)
		}
	})
}
