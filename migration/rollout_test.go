package migration

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// A fleet following the phase (PhaseFlag) increments a shared counter while
// the Controller moves the phase legacy -> combined -> new -> combined ->
// legacy. No two holders ever overlap, the count is exact, and every mode is
// used on the way.
func TestRollout_FullCycleDrivenByTheControllerCountsExactly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s, err := model.NewFaulty(newStore(), model.FaultConfig{MinLatency: 200 * time.Microsecond, MaxLatency: 2 * time.Millisecond,
			Clock: &clock.Local{}, Rand: rand.New(rand.NewPCG(4, 2))})
		if err != nil {
			t.Fatal(err)
		}
		c := newController(t, s, 10*time.Second)
		const procs = 5
		var x exclusion
		var modes [lockstep.ModeNew + 1]atomic.Int64
		var stop atomic.Bool
		var wg sync.WaitGroup
		for i := range procs {
			flag, err := NewPhaseFlag(s, &PhaseFlagOptions{Cache: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			l := newProcess(t, s, "w"+string(rune('0'+i)), flag)
			wg.Go(func() {
				for !stop.Load() {
					h, err := l.Lock(ctx, "counter")
					if errors.Is(err, lockstep.ErrIncompatibleMode) {
						time.Sleep(50 * time.Millisecond) // the flag lags the phase by its cache
						continue
					}
					if err != nil {
						t.Error(err)
						return
					}
					modes[h.Mode()].Add(1)
					x.increment(2 * time.Millisecond)
					if err := h.Unlock(ctx); err != nil {
						t.Error(err)
					}
				}
			})
		}
		for _, m := range []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew, lockstep.ModeCombined, lockstep.ModeLegacy} {
			time.Sleep(3 * time.Second)
			if err := c.Set(ctx, m); err != nil {
				t.Fatalf("Set(%v): %v", m, err)
			}
		}
		time.Sleep(3 * time.Second)
		stop.Store(true)
		wg.Wait()
		var total int64
		for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
			if modes[m].Load() == 0 {
				t.Errorf("no lock was taken in mode %v", m)
			}
			total += modes[m].Load()
		}
		if x.doubles != 0 || int64(x.counter) != total {
			t.Fatalf("double grants %d, counter %d; want 0 and %d", x.doubles, x.counter, total)
		}
		t.Logf("%d increments: legacy %d, combined %d, new %d", total, modes[lockstep.ModeLegacy].Load(), modes[lockstep.ModeCombined].Load(), modes[lockstep.ModeNew].Load())
	})
}
