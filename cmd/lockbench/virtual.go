package main

import (
	"runtime"
	"runtime/metrics"

	"github.com/lockstep-go/lockstep/model"
)

// runVirtual runs work on virtual time: whenever no goroutine can run — every
// goroutine the work started is asleep on clk or blocked on something only
// a running goroutine could release — the earliest sleeper (ties in sleep
// order) is woken alone, time jumping to its deadline, and runs until it
// sleeps or blocks again, readying whom it readies. One goroutine moves at a
// time, so a run is a function of its seed. The work must take all time and
// waiting from clk (store calls on the model return at once, or sleep their
// latency on clk), which holds for the lock algorithms: they take both from
// the injected clock. The result is a discrete-event simulation whose figures
// do not depend on this machine's speed or load.
//
// The run holds GOMAXPROCS at 1. With one P nothing runs while the driver
// looks, and runtime.Gosched hands the P to every goroutine a mover
// readied before the driver looks again; so "no goroutine runnable" (the
// scheduler's own count, runtime/metrics) is exact when the driver sees it.
// That needs no knowledge of which goroutines the lock code keeps blocked
// on channels or sleeping (a Locker's lease scheduler, its renewals), and it
// is much faster than racing for cores: on a loaded 2-core machine the seed
// scenario ran over ten times faster than with every core.
//
// Time itself is the model's: the clock is model.ManualClock, and WakeNext
// picks who moves next. What this function adds is only the wait for the
// goroutines to park, which the model's own scheduler (model/sim) gets from
// testing/synctest: synctest.Test needs a *testing.T (Go 1.26 has no
// synctest.Run), so a command cannot run model/sim. virtual_sim_test.go runs
// the seed experiment on model/sim as well and checks that both give the
// same figures, acquisition by acquisition.
func runVirtual(clk *model.ManualClock, work func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	done := make(chan struct{})
	go func() {
		defer close(done)
		work()
	}()
	samples := []metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}, {Name: "/sched/goroutines/running:goroutines"}}
	for {
		select {
		case <-done:
			return
		default:
		}
		// parked first: it hands the P over, which the goroutines the
		// last wake readied need before anyone is asleep again.
		if parked(samples) && clk.Sleepers() > 0 {
			clk.WakeNext()
		}
	}
}

// parked reports whether no goroutine but the caller is runnable or
// running, three times in a row with the P handed over in between, so that
// a goroutine readied by the last mover has run (and parked again) first.
func parked(samples []metrics.Sample) bool {
	for range 3 {
		runtime.Gosched()
		metrics.Read(samples)
		if samples[0].Value.Uint64() != 0 || samples[1].Value.Uint64() > 1 {
			return false
		}
	}
	return true
}
