package storetest_test

import (
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/storetest"
)

// A Store implementation proves it has Cassandra's semantics by passing the
// suite from a test of its own: this is how the model (here) and the gocql
// store (cassandra/integration_test.go, on a real node) run it. A real
// store's Advance sleeps, and its Now reads the local clock.
func ExampleRun() {
	TestMyStore := func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) storetest.Harness {
			clk := model.NewManualClock(model.DefaultStart)
			return storetest.Harness{
				Store:   model.New(clk),
				Table:   "cells",
				Now:     clk.Now,
				Advance: func(_ testing.TB, d time.Duration) { clk.Advance(d) },
			}
		})
	}
	_ = TestMyStore
}
