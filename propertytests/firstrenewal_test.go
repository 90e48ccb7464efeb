package propertytests

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

// first always picks the first choice: every replica applies a write, and
// reads go to the first quorum.
type first struct{}

func (first) Choose(string, int) int { return 0 }

// slowAcquisitionLosesLease runs one process on the simulated cluster at the
// smallest accepted timings. Its claim is confirmed late — virtual time
// moves Window − Renew + 200 ms right after the claim's write — and
// afterwards every request is served at once and time moves only when
// nothing can run. It reports whether the holder saw Lost() within 10s:
// with every renewal answered, it must not.
//
// The robustness suite found the defect on a real node (one hold in 169 at
// TTL 4s): the first renewal was due Renew after the lease's Start, not after
// the winning write's send, so it came after the deadline.
func slowAcquisitionLosesLease(t *testing.T, k *queuelock.TestingKnobs) (lost bool) {
	synctest.Test(t, func(t *testing.T) {
		s := sim.New(sim.Config{})
		p := s.AddProcess("p0")
		l, err := queuelock.New(p.Store(), &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew,
			MaxClockSkew: maxClockSkew, Poll: poll, Clock: p.Clock(), ProcessID: p.Name, TestingKnobs: k})
		if err != nil {
			t.Fatal(err)
		}
		var held, sawLost atomic.Bool
		p.Go(func(ctx context.Context) {
			h, err := l.Lock(ctx, "L")
			if err != nil {
				return
			}
			held.Store(true)
			for ctx.Err() == nil {
				select {
				case <-h.Lost():
					sawLost.Store(true)
					return
				default:
				}
				if p.Clock().Sleep(ctx, 100*time.Millisecond) != nil {
					return
				}
			}
		})
		s.Settle()
		window := lease.Config{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew}.Window()
		end := s.Now() + (10 * time.Second).Microseconds()
		delayed := false
		for s.Now() < end && !sawLost.Load() {
			ys := s.Runnable()
			if len(ys) == 0 {
				if !s.Tick() {
					break
				}
				continue
			}
			y := ys[0]
			claim := y.Kind == sim.Put && y.Table == queuelock.DefaultTable && ownerCellIn(y.Cells)
			s.Grant(y, first{})
			if claim && !delayed {
				s.Advance(window - renew + 200*time.Millisecond)
				delayed = true
			}
		}
		lost = sawLost.Load()
		s.Close()
		_ = l.Close(context.Background())
		s.Settle()
		if !held.Load() || !delayed {
			t.Fatalf("the scenario did not run: held %v, claim delayed %v", held.Load(), delayed)
		}
	})
	return lost
}

func ownerCellIn(cells []lockstep.Cell) bool {
	for _, c := range cells {
		if _, _, err := layout.ParseOwnerColumn(c.Column); err == nil {
			return true
		}
	}
	return false
}

func TestSim_SlowAcquisitionKeepsItsLease(t *testing.T) {
	if slowAcquisitionLosesLease(t, nil) {
		t.Fatal("a holder whose claim was confirmed late lost its lease with every renewal answered: the first renewal came after the deadline")
	}
}
