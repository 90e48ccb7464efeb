package combined

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

func opts(tm locktest.Timing, seed uint64) *Options {
	return &Options{
		Queue:  &queuelock.Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Poll: 10 * time.Millisecond},
		Legacy: &shadowlock.Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Rand: rand.New(rand.NewPCG(seed, 3))},
	}
}

func TestCombined_Suite(t *testing.T) {
	var seed uint64
	locktest.Run(t, locktest.Env{
		Virtual:  true,
		NewStore: func(t *testing.T) lockstep.Store { return model.New(&clock.Local{}) },
		NewLocker: func(t *testing.T, s lockstep.Store, tm locktest.Timing) locktest.Locker {
			seed++
			l, err := New(s, opts(tm, seed))
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	})
}

var tm = locktest.Timing{TTL: 4 * time.Second, Renew: 500 * time.Millisecond}

// A combined holder excludes legacy processes and new processes alike, and
// each of them excludes it.
func TestCombined_ExcludesLegacyAndNewHolders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		c, _ := New(s, opts(tm, 1))
		defer c.Close(ctx)
		legacy, _ := shadowlock.New(s, &shadowlock.Options{TTL: tm.TTL, Renew: tm.Renew})
		defer legacy.Close(ctx)
		queue, _ := queuelock.New(s, &queuelock.Options{TTL: tm.TTL, Renew: tm.Renew})
		defer queue.Close(ctx)

		h, err := c.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		if h.Mode() != lockstep.ModeCombined {
			t.Fatalf("mode %v", h.Mode())
		}
		if _, err := legacy.TryLock(ctx, "id"); !errors.Is(err, lockstep.ErrLocked) {
			t.Fatalf("legacy TryLock beside combined holder = %v", err)
		}
		if _, err := queue.TryLock(ctx, "id"); !errors.Is(err, lockstep.ErrLocked) {
			t.Fatalf("new TryLock beside combined holder = %v", err)
		}
		_ = h.Unlock(ctx)

		for name, other := range map[string]lockstep.Locker{"legacy": legacy, "new": queue} {
			oh, err := other.Lock(ctx, "id")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.TryLock(ctx, "id"); !errors.Is(err, lockstep.ErrLocked) {
				t.Fatalf("combined TryLock beside %s holder = %v", name, err)
			}
			_ = oh.Unlock(ctx)
		}
		// Nothing left behind by the failed combined attempts.
		for _, table := range []string{"legacy_main", "legacy_shadow"} {
			if cs, _ := s.Read(ctx, table, "id", lockstep.Slice{}); len(cs) != 0 {
				t.Fatalf("%s left with %v", table, cs)
			}
		}
		cs, _ := s.Read(ctx, queuelock.DefaultTable, "id", lockstep.Slice{From: "0"})
		for _, c := range cs {
			if c.Column != layout.FloorColumn { // the floor cell is no one's lock
				t.Fatalf("queue left with %v", cs)
			}
		}
	})
}

// Legacy, combined and new processes increment a counter; with the modes
// mixed within {legacy, combined} and within {combined, new} the count is exact.
func TestCombined_MixedFleetsCountExactly(t *testing.T) {
	for name, modes := range map[string][]lockstep.Mode{
		"legacy+combined": {lockstep.ModeLegacy, lockstep.ModeCombined, lockstep.ModeLegacy, lockstep.ModeCombined},
		"combined+new":    {lockstep.ModeCombined, lockstep.ModeNew, lockstep.ModeCombined, lockstep.ModeNew},
		"legacy+new":      {lockstep.ModeLegacy, lockstep.ModeNew, lockstep.ModeLegacy, lockstep.ModeNew}, // must break
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				s := model.New(&clock.Local{})
				var mu sync.Mutex // guards the check itself, not the critical section
				counter, inside := 0, 0
				done := make(chan error, len(modes))
				const k = 15
				for i, m := range modes {
					var l interface {
						lockstep.Locker
						Close(context.Context) error
					}
					switch m {
					case lockstep.ModeLegacy:
						l, _ = shadowlock.New(s, &shadowlock.Options{TTL: tm.TTL, Renew: tm.Renew, Rand: rand.New(rand.NewPCG(uint64(i), 9))})
					case lockstep.ModeNew:
						l, _ = queuelock.New(s, &queuelock.Options{TTL: tm.TTL, Renew: tm.Renew, Poll: 10 * time.Millisecond})
					default:
						l, _ = New(s, opts(tm, uint64(i)))
					}
					go func() {
						defer l.Close(ctx)
						for range k {
							h, err := l.Lock(ctx, "counter")
							if err != nil {
								done <- err
								return
							}
							mu.Lock()
							inside++
							two := inside != 1
							v := counter
							mu.Unlock()
							time.Sleep(time.Millisecond)
							mu.Lock()
							counter = v + 1
							inside--
							mu.Unlock()
							if two {
								_ = h.Unlock(ctx)
								done <- errors.New("two holders")
								return
							}
							_ = h.Unlock(ctx)
						}
						done <- nil
					}()
				}
				var broken error
				for range modes {
					if err := <-done; err != nil {
						broken = err
					}
				}
				if name == "legacy+new" {
					// The control: legacy and new touch disjoint rows.
					if broken == nil && counter == k*len(modes) {
						t.Fatal("a legacy+new fleet kept exclusion; the test has no teeth")
					}
					return
				}
				if broken != nil {
					t.Fatal(broken)
				}
				if counter != k*len(modes) {
					t.Fatalf("counter %d, want %d", counter, k*len(modes))
				}
			})
		})
	}
}
