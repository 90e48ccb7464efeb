package clock

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep"
)

// Local is the process's own clock: wall-clock microseconds that never go
// backwards (a wall-clock step back is absorbed by repeating the last value),
// and sleeping on real timers. The zero value is ready to use; a Local is safe
// for concurrent use.
//
// Inside a testing/synctest bubble it runs on the bubble's fake time, which is
// how this module's unit tests run the production clock without waiting.
type Local struct {
	last atomic.Int64
}

var _ lockstep.Clock = (*Local)(nil)

// Now returns wall-clock microseconds, never less than a value it returned
// before.
func (c *Local) Now() int64 {
	now := time.Now().UnixMicro()
	for {
		last := c.last.Load()
		if now <= last {
			return last
		}
		if c.last.CompareAndSwap(last, now) {
			return now
		}
	}
}

// Sleep waits for d or until ctx is done.
func (c *Local) Sleep(ctx context.Context, d time.Duration) error {
	return SleepTimer(ctx, d)
}

// SleepTimer waits for d on a real timer or until ctx is done, returning
// ctx.Err() in the latter case.
func SleepTimer(ctx context.Context, d time.Duration) error {
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

// Offset is a clock that reads By ahead of Base (behind, for a negative By):
// a process with a skewed clock. It sleeps as Base does. Safe for concurrent
// use if Base is.
type Offset struct {
	Base lockstep.Clock
	By   time.Duration
}

var _ lockstep.Clock = Offset{}

// Now returns Base's time shifted by By.
func (o Offset) Now() int64 { return o.Base.Now() + o.By.Microseconds() }

// Sleep waits as Base does.
func (o Offset) Sleep(ctx context.Context, d time.Duration) error { return o.Base.Sleep(ctx, d) }
