package shadow

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
)

func TestShadowLock_Suite(t *testing.T) {
	seed := uint64(0)
	locktest.Run(t, locktest.Env{
		Virtual:  true,
		NewStore: func(t *testing.T) lockstep.Store { return model.New(&clock.Local{}) },
		NewLocker: func(t *testing.T, s lockstep.Store, tm locktest.Timing) locktest.Locker {
			seed++
			l, err := New(s, &Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Rand: rand.New(rand.NewPCG(seed, 7))})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	})
}

func TestShadowLock_FrozenFormat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		l, err := New(s, &Options{TTL: 6 * time.Second, Renew: time.Second, ProcessID: "p1"})
		if err != nil {
			t.Fatal(err)
		}
		h, err := l.Lock(ctx, "invoice/42")
		if err != nil {
			t.Fatal(err)
		}
		main, _ := s.Read(ctx, "legacy_main", "invoice/42", lockstep.Slice{})
		shadow, _ := s.Read(ctx, "legacy_shadow", "invoice/42", lockstep.Slice{})
		if len(main) != 1 || main[0].Column != h.Owner() || main[0].Column != "p1.1" || len(main[0].Value) != 0 || main[0].TTL != 6*time.Second {
			t.Fatalf("main row = %+v, want one empty cell named by the owner with TTL 6s", main)
		}
		if len(shadow) != 0 {
			t.Fatalf("shadow row = %+v, want empty while held", shadow)
		}
		_ = h.Unlock(ctx)
		if main, _ := s.Read(ctx, "legacy_main", "invoice/42", lockstep.Slice{}); len(main) != 0 {
			t.Fatalf("main row after Unlock = %+v", main)
		}
	})
}

// A legacy holder's cell, written by a process this package did not start
// (another legacy binary), blocks TryLock: the format is shared.
func TestShadowLock_HonoursForeignLegacyCell(t *testing.T) {
	ctx := context.Background()
	clk := model.NewManualClock(0)
	s := model.New(clk)
	_ = s.Put(ctx, "legacy_main", "id", lockstep.Cell{Column: "someone-else", Value: []byte{}, Timestamp: clk.Now(), TTL: 30 * time.Second})
	l, _ := New(s, &Options{Clock: clk})
	if _, err := l.TryLock(ctx, "id"); !errors.Is(err, lockstep.ErrLocked) {
		t.Fatalf("TryLock = %v, want ErrLocked", err)
	}
	if st := s.Stats(); st.Puts != 1 {
		t.Fatalf("TryLock against a held lock wrote: %+v", st)
	}
}

func TestNew_RefusesBadOptions(t *testing.T) {
	s := model.New(model.NewManualClock(0))
	for name, o := range map[string]*Options{
		"negative TTL":      {TTL: -time.Second},
		"renew too long":    {TTL: 6 * time.Second, Renew: 1500 * time.Millisecond},
		"unsafe main table": {MainTable: "x\"; drop"},
		"same tables":       {MainTable: "a", ShadowTable: "a"},
		"bad process id":    {ProcessID: "has space"},
	} {
		if _, err := New(s, o); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("%s: New = %v, want ErrInvalidConfig", name, err)
		}
	}
	if _, err := New(nil, nil); !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Errorf("nil store: %v", err)
	}
	if st := s.Stats(); st.Puts+st.Reads+st.Deletes != 0 {
		t.Fatalf("store touched: %+v", st)
	}
}
