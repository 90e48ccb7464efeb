package model

import (
	"context"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
)

// DefaultStart is where a ManualClock starts unless told otherwise:
// 2026-01-01T00:00:00Z, in microseconds since the Unix epoch.
const DefaultStart int64 = 1_767_225_600_000_000

// ManualClock is a lockstep.Clock whose time moves only when a test calls
// Advance or Set. Sleep parks the caller until virtual time reaches its
// deadline (or its ctx ends); Sleepers and BlockUntil let a test wait for
// goroutines to park before it moves time, without wall-clock sleeps.
//
// A ManualClock is safe for concurrent use. The zero value is not usable;
// call NewManualClock.
type ManualClock struct {
	mu       sync.Mutex
	cond     *sync.Cond // broadcast whenever the set of sleepers changes
	now      int64      // virtual elapsed time, µs; Now adds wall
	wall     int64      // µs the wall clock was stepped by (StepWall)
	seq      uint64
	sleepers map[*sleeper]struct{}
}

// sleeper is one goroutine parked in Sleep.
type sleeper struct {
	seq      uint64 // registration order, to break ties between equal deadlines
	deadline int64
	wake     chan struct{} // closed once virtual time reaches deadline
}

// NewManualClock returns a ManualClock reading startMicros (microseconds
// since the Unix epoch); 0 means DefaultStart.
func NewManualClock(startMicros int64) *ManualClock {
	if startMicros == 0 {
		startMicros = DefaultStart
	}
	c := &ManualClock{now: startMicros, sleepers: make(map[*sleeper]struct{})}
	c.cond = sync.NewCond(&c.mu)
	return c
}

var _ lockstep.Clock = (*ManualClock)(nil)

// Now returns the virtual wall time in microseconds: elapsed time plus every
// StepWall so far. Unlike clock.Local it may go back, after a StepWall back.
func (c *ManualClock) Now() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now + c.wall
}

// Elapsed returns the virtual elapsed time in microseconds, which Advance
// and Set move and StepWall does not.
func (c *ManualClock) Elapsed() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// StepWall steps the wall clock by d without moving elapsed time, as NTP or
// an operator steps a system clock. Sleepers are not woken: they wait in
// elapsed time.
func (c *ManualClock) StepWall(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wall += d.Microseconds()
}

// Sleep blocks until virtual time has advanced by d (rounded up to whole
// microseconds) or ctx is done, and then returns ctx.Err() in the latter
// case. A non-positive d returns ctx.Err() at once.
func (c *ManualClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	us := int64((d + time.Microsecond - 1) / time.Microsecond)
	c.mu.Lock()
	c.seq++
	s := &sleeper{seq: c.seq, deadline: c.now + us, wake: make(chan struct{})}
	c.sleepers[s] = struct{}{}
	c.cond.Broadcast()
	c.mu.Unlock()

	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		// If time reached the deadline concurrently, the sleeper is gone
		// already; the caller asked to stop either way, so say so.
		c.mu.Lock()
		delete(c.sleepers, s)
		c.cond.Broadcast()
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves virtual time — wall and elapsed together — forward by d
// (rounded down to whole microseconds) and wakes every sleeper whose deadline
// it reaches. A negative d moves both back, as Set does; to step the wall
// clock alone, as NTP does, use StepWall.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setLocked(c.now + d.Microseconds())
}

// Set moves virtual elapsed time to micros (the wall clock follows, keeping
// its StepWall offset) and wakes every sleeper whose deadline it reaches.
// Moving it back breaks Elapsed's promise never to decrease, which only a
// test of a broken clock should want; a clock step is StepWall.
func (c *ManualClock) Set(micros int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setLocked(micros)
}

func (c *ManualClock) setLocked(micros int64) {
	c.now = micros
	woke := false
	for s := range c.sleepers {
		if s.deadline <= micros {
			close(s.wake)
			delete(c.sleepers, s)
			woke = true
		}
	}
	if woke {
		c.cond.Broadcast()
	}
}

// Sleepers returns how many goroutines are parked in Sleep.
func (c *ManualClock) Sleepers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleepers)
}

// NextDeadline returns the earliest deadline of a parked sleeper and true, or
// false if none is parked. A scheduler can Set the clock to it to wake the
// next sleeper.
func (c *ManualClock) NextDeadline() (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var next int64
	found := false
	for s := range c.sleepers {
		if !found || s.deadline < next {
			next, found = s.deadline, true
		}
	}
	return next, found
}

// BlockUntil blocks until at least n goroutines are parked in Sleep.
func (c *ManualClock) BlockUntil(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.sleepers) < n {
		c.cond.Wait()
	}
}

// BlockUntilContext is BlockUntil bounded by ctx: it returns ctx.Err() if
// ctx ends before n goroutines are parked.
func (c *ManualClock) BlockUntilContext(ctx context.Context, n int) error {
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.cond.Broadcast()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.sleepers) < n {
		if err := ctx.Err(); err != nil {
			return err
		}
		c.cond.Wait()
	}
	return nil
}

// WakeNext wakes exactly one sleeper: the one with the earliest deadline,
// ties broken by the order in which they went to sleep. Virtual time moves
// to that deadline if it lies ahead. It reports whether anyone slept. A
// driver that wakes one sleeper at a time and lets it run until it sleeps
// again gets a deterministic discrete-event simulation.
func (c *ManualClock) WakeNext() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	var next *sleeper
	for s := range c.sleepers {
		if next == nil || s.deadline < next.deadline || (s.deadline == next.deadline && s.seq < next.seq) {
			next = s
		}
	}
	if next == nil {
		return false
	}
	if next.deadline > c.now {
		c.now = next.deadline
	}
	close(next.wake)
	delete(c.sleepers, next)
	c.cond.Broadcast()
	return true
}
