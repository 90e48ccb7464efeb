package sim_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

type randChooser struct{ r *rand.Rand }

func (c randChooser) Choose(_ string, n int) int { return c.r.IntN(n) }

// runQueueFleet runs three queue-lock processes that each take the lock
// twice, under choices drawn from seed, and returns the trace of grants.
func runQueueFleet(t *testing.T, seed uint64) string {
	var trace strings.Builder
	synctest.Test(t, func(t *testing.T) {
		s := sim.New(sim.Config{})
		ch := randChooser{rand.New(rand.NewPCG(seed, 1))}
		done := 0
		for i := range 3 {
			p := s.AddProcess(fmt.Sprintf("p%d", i))
			l, err := queuelock.New(p.Store(), &queuelock.Options{TTL: 6 * time.Second, Renew: time.Second,
				Poll: 500 * time.Millisecond, Clock: p.Clock(), ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(i)))})
			if err != nil {
				t.Fatal(err)
			}
			p.Go(func(ctx context.Context) {
				for range 2 {
					h, err := l.Lock(ctx, "id")
					if err != nil {
						return
					}
					_ = p.Clock().Sleep(ctx, time.Second)
					_ = h.Unlock(context.WithoutCancel(ctx))
				}
				done++
			})
		}
		s.Settle()
		for steps := 0; done < 3 && steps < 5000; steps++ {
			ys := s.Runnable()
			k := ch.Choose("event", len(ys)+s.Messages()+1)
			switch {
			case k < len(ys):
				fmt.Fprintf(&trace, "%d %v\n", s.Now(), ys[k])
				s.Grant(ys[k], ch)
			case k < len(ys)+s.Messages():
				fmt.Fprintf(&trace, "%d deliver %d\n", s.Now(), k-len(ys))
				s.Deliver(k - len(ys))
			default:
				fmt.Fprintf(&trace, "%d tick\n", s.Now())
				if !s.Tick() && len(ys) == 0 && s.Messages() == 0 {
					steps = 1 << 30
				}
			}
		}
		if done != 3 {
			t.Errorf("only %d of 3 processes finished at %d:\n%s", done, s.Now(), trace.String())
		}
		if !s.Close() {
			t.Error("yields left after Close")
		}
	})
	return trace.String()
}

func TestSim_SameSeedSameRun(t *testing.T) {
	for seed := range uint64(5) {
		a, b := runQueueFleet(t, seed), runQueueFleet(t, seed)
		if a != b {
			t.Fatalf("seed %d: runs differ:\n%s\n---\n%s", seed, a, b)
		}
	}
}
