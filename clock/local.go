package clock

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep"
)

// Local is the process's own clock. Now reads the wall clock in microseconds
// and never goes backwards (a wall-clock step back is absorbed by repeating
// the last value, so write timestamps stay monotone); Elapsed reads Go's
// monotonic clock, which no wall-clock step moves; Sleep waits on real
// timers, which run on the monotonic clock too. The zero value is ready to
// use; a Local is safe for concurrent use.
//
// Inside a testing/synctest bubble it runs on the bubble's fake time, which is
// how this module's unit tests run the production clock without waiting.
type Local struct {
	last   atomic.Int64
	once   sync.Once
	origin time.Time // carries a monotonic reading: Elapsed measures from it
}

var _ lockstep.Clock = (*Local)(nil)

// Now returns wall-clock microseconds, never less than a value it returned
// before.
func (c *Local) Now() int64 { return atLeast(&c.last, time.Now().UnixMicro()) }

// atLeast returns now, or *last if that is later, and records the result in
// *last: a wall clock that never returns less than it returned before.
func atLeast(last *atomic.Int64, now int64) int64 {
	for {
		l := last.Load()
		if now <= l {
			return l
		}
		if last.CompareAndSwap(l, now) {
			return now
		}
	}
}

// Elapsed returns monotonic microseconds since the clock's first reading of
// Elapsed.
func (c *Local) Elapsed() int64 {
	c.once.Do(func() { c.origin = time.Now() })
	return time.Since(c.origin).Microseconds()
}

// Sleep waits for d on a real timer or until ctx is done, returning
// ctx.Err() in the latter case.
func (c *Local) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Offset is a clock whose wall time reads By ahead of Base (behind, for a
// negative By): a process with a skewed clock. Elapsed time and sleeping are
// Base's. Safe for concurrent use if Base is.
type Offset struct {
	Base lockstep.Clock
	By   time.Duration
}

var _ lockstep.Clock = Offset{}

// Now returns Base's time shifted by By.
func (o Offset) Now() int64 { return o.Base.Now() + o.By.Microseconds() }

// Elapsed returns Base's elapsed time: skew does not change how fast time
// passes.
func (o Offset) Elapsed() int64 { return o.Base.Elapsed() }

// Sleep waits as Base does.
func (o Offset) Sleep(ctx context.Context, d time.Duration) error { return o.Base.Sleep(ctx, d) }

// Stepped is a clock whose wall time can be stepped at run time, as NTP or an
// operator steps a system clock, while its elapsed time and sleeping stay
// Base's. Now never goes backwards: after a step back it repeats its last
// value until Base catches up, as Local does. It is for tests and fault
// injection (the real-Cassandra suite steps a holder's clock with it). Safe
// for concurrent use if Base is.
type Stepped struct {
	Base lockstep.Clock
	by   atomic.Int64 // µs
	last atomic.Int64
}

var _ lockstep.Clock = (*Stepped)(nil)

// Step moves the wall clock by d (back, for a negative d).
func (s *Stepped) Step(d time.Duration) { s.by.Add(d.Microseconds()) }

// Now returns Base's wall time plus every step so far, never less than a
// value it returned before.
func (s *Stepped) Now() int64 { return atLeast(&s.last, s.Base.Now()+s.by.Load()) }

// Elapsed returns Base's elapsed time, which no step moves.
func (s *Stepped) Elapsed() int64 { return s.Base.Elapsed() }

// Sleep waits as Base does.
func (s *Stepped) Sleep(ctx context.Context, d time.Duration) error { return s.Base.Sleep(ctx, d) }
