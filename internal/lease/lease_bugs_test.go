//go:build lockstep_bugs

package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/model"
)

// The planted defects break the lease in ways lease_test.go's checks must
// see: these tests show that those checks fail with them.

func TestPlantedWallClockLease_StepBackKeepsLostOpen(t *testing.T) {
	c := model.NewManualClock(0)
	w := WallClock(c)
	l := startLease(t, w, Stamp(w), func(context.Context) error { return errors.New("store down") }, Hooks{})
	defer l.Stop()
	c.StepWall(-2 * cfg.TTL)
	c.Advance(cfg.Window())
	select {
	case <-l.Lost():
		t.Fatal("Lost() closed: the planted defect did not keep the lease on the wall clock")
	default:
	}
}

func TestPlantedHalfTTLLease_AcceptsTTL1s(t *testing.T) {
	c := Config{TTL: time.Second, Renew: 300 * time.Millisecond, MaxServerSkew: time.Second, Knobs: &TestingKnobs{HalfTTLLease: true}}
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate() = %v: the planted defect should accept TTL 1s", err)
	}
	if w := c.Window(); w != 500*time.Millisecond {
		t.Fatalf("Window() = %v, want the planted TTL/2", w)
	}
}

func TestPlantedLostTrustsScheduler_LostOpenPastTheDeadline(t *testing.T) {
	c := &frozenClock{}
	planted := cfg
	planted.Knobs = &TestingKnobs{LostTrustsScheduler: true}
	l := newScheduler(t, c, nil).Start(planted, 0, ok, Hooks{})
	defer l.Stop()
	c.now.Store(planted.Window().Microseconds())
	select {
	case <-l.Lost():
		t.Fatal("Lost() closed: the planted defect did not leave the deadline to the sleeping scheduler")
	default:
	}
}
