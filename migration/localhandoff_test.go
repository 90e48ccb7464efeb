package migration

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/held"
)

// TestLocker_LocalHandoffKeepsTheModeInTheCensusUntilTheStoreRelease: a
// legacy lock handed to another goroutine of the process after its flag
// switched to combined is still held in mode legacy, and the census says so
// until the store hold is released: the Controller refuses to commit new
// meanwhile, and commits it afterwards (docs/algorithms.md, section 4.15).
func TestLocker_LocalHandoffKeepsTheModeInTheCensusUntilTheStoreRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		c := newController(t, s, 0)
		setPhase(t, c, lockstep.ModeCombined)
		flip := flagOf(lockstep.ModeLegacy)
		o := withIdentity(testOptions(1), &clock.Local{}, "cohort")
		o.LocalHandoff = 2
		l, err := New(s, flip, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close(context.Background()) })
		a, err := l.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		type res struct {
			l   lockstep.Lock
			err error
		}
		bc := make(chan res, 1)
		go func() { b, err := l.Lock(ctx, "id"); bc <- res{b, err} }()
		synctest.Wait()
		flip.set(lockstep.ModeCombined)
		if err := a.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		b := <-bc
		if b.err != nil {
			t.Fatal(b.err)
		}
		if b.l.Owner() != a.Owner() || b.l.Mode() != lockstep.ModeLegacy {
			t.Fatalf("got %s in mode %v, want %s's store hold in mode legacy", b.l.Owner(), b.l.Mode(), a.Owner())
		}
		time.Sleep(testCensusTTL / 3)
		synctest.Wait()
		err = c.Set(ctx, lockstep.ModeNew)
		var me *MoveError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), "holds 1 legacy lock") {
			t.Fatalf("Set(new) while a local holder has the legacy store hold = %v, want a MoveError naming it", err)
		}
		if err := b.l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(testCensusTTL / 3)
		synctest.Wait()
		if err := c.Set(ctx, lockstep.ModeNew); err != nil {
			t.Fatalf("Set(new) after the store release: %v", err)
		}
	})
}

func TestNew_RefusesNegativeLocalHandoff(t *testing.T) {
	o := testOptions(1)
	o.LocalHandoff = -1
	_, err := New(newStore(), flagOf(lockstep.ModeNew), o)
	var ce *lockstep.ConfigError
	if !errors.As(err, &ce) || ce.Field != "LocalHandoff" {
		t.Fatalf("New with LocalHandoff -1 = %v, want a ConfigError on LocalHandoff", err)
	}
	o = testOptions(1)
	o.Queue.LocalHandoff = 2
	if _, err := New(newStore(), flagOf(lockstep.ModeNew), o); !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Fatalf("New with Queue.LocalHandoff = %v, want ErrInvalidConfig", err)
	}
}

// TestLocker_LocalHandoffReservesATokenBlockInEveryMode: in each mode the
// store acquisition reserves LocalHandoff+1 tokens (the global cell holds
// the block's last), and a local grant takes the next with no draw, so a
// later draw anywhere is above every token of the block
// (docs/algorithms.md, sections 4.15 and 5.1).
func TestLocker_LocalHandoffReservesATokenBlockInEveryMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		for _, path := range [][]lockstep.Mode{{lockstep.ModeLegacy}, {lockstep.ModeCombined}, {lockstep.ModeCombined, lockstep.ModeNew}} {
			s := newStore()
			setPhase(t, newController(t, s, 0), path...)
			mode := path[len(path)-1]
			clk := &clock.Local{}
			g, err := clock.NewGlobal(s, "", clk)
			if err != nil {
				t.Fatal(err)
			}
			o := testOptions(1)
			o.Fencing, o.LocalHandoff = g, 2
			l, err := New(s, flagOf(mode), withIdentity(o, clk, "p"))
			if err != nil {
				t.Fatal(err)
			}
			a, err := l.Lock(ctx, "id")
			if err != nil {
				t.Fatal(err)
			}
			first := a.(lockstep.Fenced).Token()
			if cell, err := g.Read(ctx); err != nil || cell != first+2 {
				t.Fatalf("%v: global cell %d (%v) after a store acquisition with token %d, want the block's last %d", mode, cell, err, first, first+2)
			}
			bc := make(chan lockstep.Lock, 1)
			go func() {
				b, err := l.Lock(ctx, "id")
				if err != nil {
					t.Error(err)
				}
				bc <- b
			}()
			synctest.Wait()
			if err := a.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			b := <-bc
			if b == nil {
				t.FailNow()
			}
			if got := b.(lockstep.Fenced).Token(); b.Owner() != a.Owner() || got != first+1 {
				t.Fatalf("%v: handed lock %s with token %d, want %s's with %d", mode, b.Owner(), got, a.Owner(), first+1)
			}
			if err := b.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestNew_RefusesBadRetain(t *testing.T) {
	for _, c := range []struct {
		name  string
		local int
		keep  time.Duration
	}{
		{"negative", 1, -time.Second},
		{"without local handoff", 0, time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := testOptions(1)
			o.LocalHandoff, o.Retain = c.local, c.keep
			_, err := New(newStore(), flagOf(lockstep.ModeNew), o)
			var ce *lockstep.ConfigError
			if !errors.As(err, &ce) || ce.Field != "Retain" {
				t.Fatalf("New with LocalHandoff %d, Retain %v = %v, want a ConfigError on Retain", c.local, c.keep, err)
			}
		})
	}
}

// TestLocker_LocalHandoffExtendsAtTheBoundByMode: at the bound, with no
// other owner waiting, a store hold of mode new goes on in memory with a
// fresh token block; with fencing, a legacy or combined hold is released
// (the mode switch refuses to extend it) and the next goroutine takes the
// id from the store; without fencing a combined hold is extended by the
// look alone and a legacy one, which has no line to look at, is released.
func TestLocker_LocalHandoffExtendsAtTheBoundByMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		for _, c := range []struct {
			path     []lockstep.Mode
			fenced   bool
			extended bool
		}{
			{[]lockstep.Mode{lockstep.ModeLegacy}, true, false},
			{[]lockstep.Mode{lockstep.ModeCombined}, true, false},
			{[]lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew}, true, true},
			{[]lockstep.Mode{lockstep.ModeLegacy}, false, false},
			{[]lockstep.Mode{lockstep.ModeCombined}, false, true},
		} {
			s := newStore()
			setPhase(t, newController(t, s, 0), c.path...)
			mode := c.path[len(c.path)-1]
			clk := &clock.Local{}
			o := testOptions(1)
			o.LocalHandoff = 1
			if c.fenced {
				g, err := clock.NewGlobal(s, "", clk)
				if err != nil {
					t.Fatal(err)
				}
				o.Fencing = g
			}
			l, err := New(s, flagOf(mode), withIdentity(o, clk, "p"))
			if err != nil {
				t.Fatal(err)
			}
			a, err := l.Lock(ctx, "id")
			if err != nil {
				t.Fatal(err)
			}
			b := handOnIn(t, l, a)
			next := handOnIn(t, l, b) // at the bound
			if got := next.Owner() == a.Owner(); got != c.extended {
				t.Fatalf("%v (fencing %v): at the bound the store hold went on in memory: %v, want %v", mode, c.fenced, got, c.extended)
			}
			if c.fenced && next.(lockstep.Fenced).Token() <= b.(lockstep.Fenced).Token() {
				t.Fatalf("%v: token %d after %d", mode, next.(lockstep.Fenced).Token(), b.(lockstep.Fenced).Token())
			}
			if err := next.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestModeSwitch_ExtendRefusesLegacyAndCombinedHolds: the mode switch's
// Extend draws nothing for a lock of mode legacy or combined.
func TestModeSwitch_ExtendRefusesLegacyAndCombinedHolds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		setPhase(t, newController(t, s, 0), lockstep.ModeCombined)
		clk := &clock.Local{}
		g, err := clock.NewGlobal(s, "", clk)
		if err != nil {
			t.Fatal(err)
		}
		o := testOptions(1)
		o.Fencing = g
		l, err := New(s, flagOf(lockstep.ModeCombined), withIdentity(o, clk, "p"))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = l.Close(ctx) }()
		before, err := g.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeCombined} {
			if _, err := (modeSwitch{l}).Extend(ctx, held.Spec{ID: "id", Mode: m, Loss: held.NewLoss()}, 2); !errors.Is(err, errNoExtension) {
				t.Fatalf("Extend of a %v hold = %v, want errNoExtension", m, err)
			}
		}
		if after, err := g.Read(ctx); err != nil || after != before {
			t.Fatalf("global cell %d (%v) after refused extensions, want %d: nothing drawn", after, err, before)
		}
	})
}

// handOnIn unlocks cur with a Lock of its id on l waiting and returns what
// that Lock got.
func handOnIn(t *testing.T, l *Locker, cur lockstep.Lock) lockstep.Lock {
	t.Helper()
	ctx := context.Background()
	type res struct {
		l   lockstep.Lock
		err error
	}
	ch := make(chan res, 1)
	go func() { n, err := l.Lock(ctx, cur.ID()); ch <- res{n, err} }()
	synctest.Wait()
	if err := cur.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.l
}
