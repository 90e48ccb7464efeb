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
