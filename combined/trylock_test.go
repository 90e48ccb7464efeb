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
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// A combined process and legacy processes calling TryLock in a loop, in step
// (every request takes the same virtual millisecond), each acquire within a
// bound: the combined TryLock's legacy half retries a mere concurrent
// attempt instead of reporting it as ErrLocked, as the legacy lock does.
func TestCombined_TryLockLoopsBesideLegacyMakeProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const bound = time.Minute
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		s := model.New(&clock.Local{})
		slow := func() lockstep.Store {
			f, err := model.NewFaulty(s, model.FaultConfig{MinLatency: time.Millisecond, MaxLatency: time.Millisecond, Clock: &clock.Local{}})
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		c, err := New(slow(), opts(tm, 1))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		lockers := map[string]lockstep.Locker{"combined": c}
		for i, name := range []string{"legacy-1", "legacy-2", "legacy-3"} {
			l, err := shadowlock.New(slow(), &shadowlock.Options{TTL: tm.TTL, Renew: tm.Renew, Rand: rand.New(rand.NewPCG(uint64(i), 9))})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close(context.Background())
			lockers[name] = l
		}
		var wg sync.WaitGroup
		for name, l := range lockers {
			wg.Go(func() {
				for {
					h, err := l.TryLock(ctx, "id")
					switch {
					case err == nil:
						_ = h.Unlock(context.Background())
						return
					case ctx.Err() != nil:
						t.Errorf("%s: no TryLock succeeded within %v: %v", name, bound, err)
						return
					case !errors.Is(err, lockstep.ErrLocked):
						t.Errorf("%s: TryLock: %v", name, err)
						return
					}
				}
			})
		}
		wg.Wait()
	})
}
