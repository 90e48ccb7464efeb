package main

import (
	"bytes"
	"runtime"
	"runtime/metrics"
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
	runVirtualSettled(clk, func() int { return 0 }, work)
}

// runVirtualSettled is runVirtual for work whose goroutines may also block
// on channels rather than only in clk.Sleep — the goroutines of held
// combined locks that merge two loss signals, whose count the work reports
// through blocked.
func runVirtualSettled(clk *model.ManualClock, blocked func() int, work func()) {
	base := runtime.NumGoroutine()
	done := make(chan struct{})
	go func() {
		defer close(done)
		work()
	}()
	buf := make([]byte, 1<<20)
	samples := []metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}, {Name: "/sched/goroutines/running:goroutines"}}
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
		// went since base was taken (a test runner's may have), so the
		// scheduler's own counts confirm it; if the count stays off, a
		// goroutine dump decides after a pause. Either way the wake happens only once
		// everything is parked, so the run stays a function of its seed.
		if (quiescent(clk, base, blocked) && idle(samples)) || (time.Since(lastWake) > 10*time.Millisecond && settled(buf)) {
			clk.WakeNext()
			lastWake = time.Now()
		}
	}
}

// quiescent reports whether every goroutine of the work but its root (which
// waits for the others) sleeps on clk or is one of blocked(), several times
// in a row so that a goroutine just woken by a cancelled context is not
// mistaken for a sleeper.
func quiescent(clk *model.ManualClock, base int, blocked func() int) bool {
	for range 6 {
		runtime.Gosched()
		if runtime.NumGoroutine()-base != clk.Sleepers()+1+blocked() {
			return false
		}
	}
	return true
}

// idle reports whether the scheduler counts no runnable goroutine and no
// running one but the caller.
func idle(samples []metrics.Sample) bool {
	metrics.Read(samples)
	return samples[0].Value.Uint64() == 0 && samples[1].Value.Uint64() <= 1
}

// settled reports whether no goroutine but the caller is running or
// runnable, by a goroutine dump.
func settled(buf []byte) bool {
	runtime.Gosched()
	n := runtime.Stack(buf, true)
	if n == len(buf) {
		return false // too many goroutines to tell
	}
	dump := buf[:n]
	i := bytes.Index(dump, []byte("\n\ngoroutine ")) // skip the caller's own entry
	if i < 0 {
		return true
	}
	dump = dump[i:]
	return !bytes.Contains(dump, []byte(" [running")) && !bytes.Contains(dump, []byte(" [runnable")) &&
		!bytes.Contains(dump, []byte(" [syscall"))
}
