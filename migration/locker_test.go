package migration

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration/census"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

func TestLocker_LockIsTakenInTheFlagsMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		setPhase(t, newController(t, s, 0), lockstep.ModeCombined, lockstep.ModeNew)
		flag := flagOf(lockstep.ModeCombined)
		l := newProcess(t, s, "p", flag)
		for _, m := range []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew} {
			flag.set(m)
			h, err := l.Lock(ctx, "id")
			if err != nil {
				t.Fatal(err)
			}
			if h.Mode() != m || !strings.HasPrefix(h.Owner(), "p.") {
				t.Fatalf("lock in mode %v, owner %s; want mode %v, owner p.<n>", h.Mode(), h.Owner(), m)
			}
			if err := h.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestLocker_RefusesAModeThePhaseForbidsNamingBothAndWritingNothing(t *testing.T) {
	for _, tc := range []struct {
		phase []lockstep.Mode // path from legacy
		mode  lockstep.Mode
	}{
		{nil, lockstep.ModeNew},
		{[]lockstep.Mode{lockstep.ModeCombined}, lockstep.ModeNew},
		{[]lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew}, lockstep.ModeLegacy},
	} {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s := newStore()
			c := newController(t, s, 0)
			setPhase(t, c, tc.phase...)
			phase, _ := c.Get(ctx)
			l := newProcess(t, s, "drifted", flagOf(tc.mode))
			for _, try := range []bool{false, true} {
				var err error
				if try {
					_, err = l.TryLock(ctx, "id")
				} else {
					_, err = l.Lock(ctx, "id")
				}
				var me *ModeError
				if !errors.Is(err, lockstep.ErrIncompatibleMode) || !errors.As(err, &me) {
					t.Fatalf("phase %v, mode %v: err = %v, want a ModeError", phase, tc.mode, err)
				}
				msg := err.Error()
				if !strings.Contains(msg, "configured mode "+tc.mode.String()) || !strings.Contains(msg, "fleet phase "+phase.String()) {
					t.Fatalf("error does not name both modes: %s", msg)
				}
			}
			if cs := lockCells(t, s, "id"); len(cs) != 0 {
				t.Fatalf("refused acquisitions wrote %v", cs)
			}
			t.Logf("phase %v: %v", phase, l.Entry())
		})
	}
}

func TestLocker_PendingMoveRefusesTheModeItsTargetForbids(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		setPhase(t, newController(t, s, 0), lockstep.ModeCombined)
		legacy := newProcess(t, s, "old", flagOf(lockstep.ModeLegacy))
		comb := newProcess(t, s, "mid", flagOf(lockstep.ModeCombined))
		// A controller is between its intent and its census read.
		if err := writePhase(ctx, s, DefaultPhaseTable, Phase{Mode: lockstep.ModeCombined, Target: lockstep.ModeNew}, time.Now().UnixMicro()+1); err != nil {
			t.Fatal(err)
		}
		if _, err := legacy.TryLock(ctx, "a"); !errors.Is(err, lockstep.ErrIncompatibleMode) {
			t.Fatalf("legacy during pending:combined->new: %v", err)
		}
		h, err := comb.TryLock(ctx, "b")
		if err != nil {
			t.Fatalf("combined during pending:combined->new: %v", err)
		}
		_ = h.Unlock(ctx)
	})
}

func TestLocker_UnknownModeFromTheFlagIsRefusedWritingNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		t.Setenv("LOCKSTEP_TEST_MODE", "newest")
		l := newProcess(t, s, "p", Env("LOCKSTEP_TEST_MODE"))
		if _, err := l.Lock(ctx, "id"); !errors.Is(err, lockstep.ErrInvalidMode) {
			t.Fatalf("err = %v, want ErrInvalidMode", err)
		} else {
			t.Log(err)
		}
		if cs := lockCells(t, s, "id"); len(cs) != 0 {
			t.Fatalf("wrote %v", cs)
		}
	})
}

// rawFlag is a FlagSource of a caller's own that answers a mode no
// release knows, with no error.
type rawFlag lockstep.Mode

func (f rawFlag) Mode(context.Context) (lockstep.Mode, error) { return lockstep.Mode(f), nil }

// A caller's own FlagSource answering an unknown mode without an error is
// refused by the Locker New builds (its last-good wrapper, the one check of
// the flag's mode) at Lock and at Ready, and nothing is written.
func TestLocker_UnknownModeFromACustomFlagIsRefusedWritingNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		l := newProcess(t, s, "p", rawFlag(9))
		if _, err := l.Lock(ctx, "id"); !errors.Is(err, lockstep.ErrInvalidMode) {
			t.Fatalf("Lock: err = %v, want ErrInvalidMode", err)
		}
		if err := l.Ready(ctx); !errors.Is(err, lockstep.ErrInvalidMode) {
			t.Fatalf("Ready: err = %v, want ErrInvalidMode", err)
		}
		if cs := lockCells(t, s, "id"); len(cs) != 0 {
			t.Fatalf("wrote %v", cs)
		}
	})
}

func TestNew_RefusesBadConfiguration(t *testing.T) {
	s := newStore()
	for name, tc := range map[string]struct {
		process string
		flag    FlagSource
		opts    *Options
	}{
		"nil flag":         {"p", nil, nil},
		"long process id":  {strings.Repeat("p", 256), Static(lockstep.ModeLegacy), nil},
		"bad process id":   {"p q", Static(lockstep.ModeLegacy), nil},
		"census ttl":       {"p", Static(lockstep.ModeLegacy), &Options{CensusTTL: 1500 * time.Millisecond}},
		"short census ttl": {"p", Static(lockstep.ModeLegacy), &Options{CensusTTL: 2 * time.Second}},
		// The census assumes the larger server skew either algorithm does:
		// with 2s, its smallest safe TTL is 5s.
		"census ttl below the legacy skew's minimum": {"p", Static(lockstep.ModeLegacy), &Options{CensusTTL: 4 * time.Second,
			Legacy: &shadowlock.Options{TTL: 6 * time.Second, MaxServerSkew: 2 * time.Second}}},
		"table name":        {"p", Static(lockstep.ModeLegacy), &Options{CensusTable: "fleet-census"}},
		"queue process id":  {"p", Static(lockstep.ModeLegacy), &Options{Queue: &queuelock.Options{ProcessID: "x"}}},
		"queue ttl":         {"p", Static(lockstep.ModeLegacy), &Options{Queue: &queuelock.Options{TTL: 1500 * time.Millisecond}}},
		"negative cache":    {"p", Static(lockstep.ModeLegacy), &Options{PhaseCache: -time.Second}},
		"controller option": {"p", Static(lockstep.ModeLegacy), &Options{PhaseTable: "Phase"}},
	} {
		l, err := New(s, tc.flag, withIdentity(tc.opts, &clock.Local{}, tc.process))
		if !errors.Is(err, lockstep.ErrInvalidConfig) {
			if l != nil {
				_ = l.Close(context.Background())
			}
			t.Errorf("%s: err = %v, want ErrInvalidConfig", name, err)
		}
	}
	if _, err := NewController(s, &ControllerOptions{Drain: -time.Second}); !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Errorf("controller drain: %v", err)
	}
}

// The three algorithms of one process issue owner ids independently; if they
// shared a namespace, a legacy lock and the legacy half of a combined lock
// of the same process would both be "<process>.1", and the second would
// mistake the first's main-row cell for its own.
func TestLocker_ModesOfOneProcessNeverShareOwnerIDs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		flag := flagOf(lockstep.ModeLegacy)
		l := newProcess(t, s, "p", flag)
		h, err := l.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		flag.set(lockstep.ModeCombined)
		if _, err := l.TryLock(ctx, "id"); !errors.Is(err, lockstep.ErrLocked) {
			t.Fatalf("combined TryLock beside the process's own legacy lock: %v", err)
		}
		_ = h.Unlock(ctx)
	})
}

// Processes flip between legacy and combined mid-run while holding locks; a
// lock keeps its mode, the census reports it, and the count is exact.
func TestLocker_SwitchingModeMidRunKeepsEachLocksModeAndCountsExactly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		setPhase(t, newController(t, s, 0), lockstep.ModeCombined)
		flag := flagOf(lockstep.ModeLegacy)

		// One process holds a legacy lock across the flip.
		p0 := newProcess(t, s, "p0", flag)
		long, err := p0.Lock(ctx, "other")
		if err != nil {
			t.Fatal(err)
		}
		flag.set(lockstep.ModeCombined)
		time.Sleep(testCensusTTL / 3)
		synctest.Wait()
		es, _ := census.Read(ctx, s, "")
		if len(es) != 1 || es[0].Configured != lockstep.ModeCombined || es[0].Held[lockstep.ModeLegacy] != 1 || long.Mode() != lockstep.ModeLegacy {
			t.Fatalf("after the flip: lock mode %v, census %v", long.Mode(), es)
		}
		t.Logf("census after the flip: %v", es[0])

		const procs, k = 4, 12
		var x exclusion
		var wg sync.WaitGroup
		modes := make(map[lockstep.Mode]int)
		var mu sync.Mutex
		for i := range procs {
			l := newProcess(t, s, "w"+string(rune('a'+i)), flag)
			wg.Go(func() {
				for j := range k {
					if i == 0 && j == k/2 {
						flag.set(lockstep.ModeLegacy) // flip under everyone's feet
					}
					h, err := l.Lock(ctx, "counter")
					if err != nil {
						t.Error(err)
						return
					}
					x.increment(time.Millisecond)
					mu.Lock()
					modes[h.Mode()]++
					mu.Unlock()
					if err := h.Unlock(ctx); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		_ = long.Unlock(ctx)
		if x.doubles != 0 || x.counter != procs*k {
			t.Fatalf("double grants %d, counter %d; want 0 and %d", x.doubles, x.counter, procs*k)
		}
		if modes[lockstep.ModeLegacy] == 0 || modes[lockstep.ModeCombined] == 0 {
			t.Fatalf("modes taken %v; want both legacy and combined", modes)
		}
		t.Logf("locks by mode: %v", modes)
	})
}

func TestLocker_StaleCensusRefusesLocksAndSignalsHeldOnesLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := &cutStore{Store: newStore(), table: census.DefaultTable}
		l := newProcess(t, s, "p", flagOf(lockstep.ModeLegacy))
		h, err := l.Lock(ctx, "held")
		if err != nil {
			t.Fatal(err)
		}
		s.cut.Store(true)
		start := time.Now()
		<-h.Lost()
		if waited := time.Since(start); waited > testCensusTTL/2 {
			t.Fatalf("lost after %v; want within CensusTTL/2 = %v of the last heartbeat", waited, testCensusTTL/2)
		}
		if err := h.Unlock(ctx); !errors.Is(err, lockstep.ErrLost) {
			t.Fatalf("Unlock after census loss = %v, want ErrLost", err)
		}
		_, err = l.Lock(ctx, "other")
		if !errors.Is(err, ErrStaleCensus) {
			t.Fatalf("Lock with a stale census = %v, want ErrStaleCensus", err)
		}
		t.Log(err)
		if cs := lockCells(t, s, "other"); len(cs) != 0 {
			t.Fatalf("refused acquisition wrote %v", cs)
		}
		s.cut.Store(false)
		time.Sleep(testCensusTTL / 3)
		h2, err := l.Lock(ctx, "other")
		if err != nil {
			t.Fatalf("after the census recovered: %v", err)
		}
		select {
		case <-h2.Lost():
			t.Fatal("a lock of the new epoch is lost")
		default:
		}
		_ = h2.Unlock(ctx)
	})
}

func TestLocker_CloseReleasesHeldLocksAndLaterCallsFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		l := newProcess(t, s, "p", flagOf(lockstep.ModeLegacy))
		if _, err := l.Lock(ctx, "id"); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if cs := lockCells(t, s, "id"); len(cs) != 0 {
			t.Fatalf("Close left %v", cs)
		}
		if _, err := l.Lock(ctx, "id"); !errors.Is(err, lockstep.ErrClosed) {
			t.Fatalf("Lock after Close = %v", err)
		}
		if err := l.Close(ctx); err != nil {
			t.Fatalf("second Close = %v", err)
		}
	})
}
