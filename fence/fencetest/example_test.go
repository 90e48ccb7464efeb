package fencetest_test

import (
	"testing"

	"github.com/lockstep-go/lockstep/fence/fencetest"
	"github.com/lockstep-go/lockstep/model"
)

// A fence.Store proves it refuses stale tokens atomically by passing the
// suite from a test of its own, as the model's (here) and the LWT store on a
// real node (cassandra, build tag integration) do.
func ExampleRun() {
	TestMyFenceStore := func(t *testing.T) {
		fencetest.Run(t, func(*testing.T) fencetest.Harness {
			return fencetest.Harness{Store: model.NewFenceStore(), Table: "fenced_resource"}
		})
	}
	_ = TestMyFenceStore
}
