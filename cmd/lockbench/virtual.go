package main

import (
	"runtime"
	"time"

	"github.com/lockstep-go/lockstep/model"
)

// runVirtual runs work on virtual time: whenever every goroutine the work
// started is asleep on clk, the earliest sleeper (ties in sleep order) is
// woken alone, time jumping to its deadline, and runs until it sleeps again.
// One goroutine moves at a time, so a run is a function of its seed. The work's
// goroutines must block only in clk.Sleep (store calls on the model return at
// once), which holds for the lock algorithms: they take all time and waiting
// from the injected clock. The result is a discrete-event simulation whose
// figures do not depend on this machine's speed or load.
func runVirtual(clk *model.ManualClock, work func()) {
	base := runtime.NumGoroutine()
	done := make(chan struct{})
	go func() {
		defer close(done)
		work()
	}()
	buf := make([]byte, 1<<20)
	lastWake := time.Now()
	for {
		select {
		case <-done:
			// Let the work's goroutines finish exiting, so that the next
			// run's baseline count is exact; bounded, because goroutines
			// outside the work (a test runner's, the runtime's cleanup
			// goroutine) may come and go meanwhile.
			for end := time.Now().Add(100 * time.Millisecond); runtime.NumGoroutine() > base && time.Now().Before(end); {
				runtime.Gosched()
			}
			return
		default:
		}
		// The count is exact only if no goroutine outside the work came or
		// went since base was taken; if it stays off, a goroutine dump
		// decides instead. Either way the wake happens only once everything
		// is parked, so the run stays a function of its seed.
		if quiescent(clk, base) || (time.Since(lastWake) > 10*time.Millisecond && settled(buf)) {
			clk.WakeNext()
			lastWake = time.Now()
		}
	}
}

// quiescent reports whether every goroutine of the work but its root (which
// waits for the others) sleeps on clk, several times in a row so that a
// goroutine just woken by a cancelled context is not mistaken for a sleeper.
func quiescent(clk *model.ManualClock, base int) bool {
	for range 4 {
		runtime.Gosched()
		if runtime.NumGoroutine()-base != clk.Sleepers()+1 {
			return false
		}
	}
	return true
}
