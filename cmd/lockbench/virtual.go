package main

import (
	"runtime"

	"github.com/lockstep-go/lockstep/model"
)

// runVirtual runs work on virtual time: whenever every goroutine the work
// started is asleep on clk, time jumps to the earliest wake-up. The work's
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
	for {
		select {
		case <-done:
			return
		default:
		}
		if quiescent(clk, base) {
			if next, ok := clk.NextDeadline(); ok {
				clk.Set(next)
			}
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
