package storetest_test

import (
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/storetest"
)

// modelHarness runs the suite on a fresh model.Store in virtual time, with a
// short gc grace so that automatic compaction runs during the TTL cases.
func modelHarness(t *testing.T) storetest.Harness {
	clock := model.NewManualClock(0)
	return storetest.Harness{
		Store:   model.New(clock, model.WithGCGrace(time.Second)),
		Table:   "cells",
		Now:     clock.Now,
		Advance: func(_ testing.TB, d time.Duration) { clock.Advance(d) },
	}
}

func TestModel(t *testing.T) {
	storetest.Run(t, modelHarness)
}

// TestModel_DefaultOptions runs the suite on a store with Cassandra's default
// gc grace, started at an instant that is not a whole second.
func TestModel_DefaultOptions(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Harness {
		clock := model.NewManualClock(model.DefaultStart + 999_999)
		return storetest.Harness{
			Store:   model.New(clock),
			Table:   "cells",
			Now:     clock.Now,
			Advance: func(_ testing.TB, d time.Duration) { clock.Advance(d) },
		}
	})
}

// TestFaultyDisabled checks that a Faulty store with faults switched off is
// transparent.
func TestFaultyDisabled(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Harness {
		h := modelHarness(t)
		f, err := model.NewFaulty(h.Store, model.FaultConfig{FailBefore: 1})
		if err != nil {
			t.Fatal(err)
		}
		f.SetEnabled(false)
		h.Store = f
		return h
	})
}

// TestFaultyLatencyOnly checks that latency in virtual time changes no
// result.
func TestFaultyLatencyOnly(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Harness {
		h := modelHarness(t)
		clock := model.NewManualClock(0)
		f, err := model.NewFaulty(h.Store, model.FaultConfig{MaxLatency: time.Millisecond, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		h.Store = f
		// Sleeps in a separate clock: move it whenever someone parks.
		ctx := t.Context()
		done := make(chan struct{})
		t.Cleanup(func() { <-done })
		go func() {
			defer close(done)
			for {
				if clock.BlockUntilContext(ctx, 1) != nil {
					return
				}
				clock.Advance(time.Millisecond)
			}
		}()
		return h
	})
}
