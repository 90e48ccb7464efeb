package peer

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Contender is a lock implementation as the loop sees it (lockbench's
// contender, cmd/lockbench/algorithms.go).
type Contender interface {
	Lock(ctx context.Context, id string) (Unlocker, error)
	Close(ctx context.Context) error
}

// Unlocker is a held lock.
type Unlocker interface {
	Unlock(ctx context.Context) error
}

// RequestCounter is implemented by contenders that count the requests
// they make outside any tally.
type RequestCounter interface {
	BackgroundRequests() int64
}

// PlainRequester is a contender that can make a plain request to its
// service: one round trip that takes no lock.
type PlainRequester interface {
	Plain(ctx context.Context) error
}

// Tally counts the requests made on one call path — inside Lock calls, or
// inside Unlock calls — marked by putting it into the ctx of those calls
// (lockbench's tally, which also splits the count by kind; only the total
// is reported).
//
// Safe for concurrent use.
type Tally struct{ n atomic.Int64 }

// Add counts n requests.
func (t *Tally) Add(n int64) { t.n.Add(n) }

type tallyKey struct{}

// WithTally returns ctx carrying t.
func WithTally(ctx context.Context, t *Tally) context.Context {
	return context.WithValue(ctx, tallyKey{}, t)
}

// TallyOf returns the tally ctx carries, or nil.
func TallyOf(ctx context.Context) *Tally {
	t, _ := ctx.Value(tallyKey{}).(*Tally)
	return t
}

// LoopConfig is the work of one process.
type LoopConfig struct {
	ID   string        // the lock id everybody takes
	K    int           // acquisitions to make; 0 means until ctx ends
	Hold time.Duration // how long each acquisition holds the lock
}

// Contend runs the process's loop, the same as lockbench's contend
// (cmd/lockbench/contend.go): cfg.K times, or until ctx ends when cfg.K is
// 0, Lock, hold, Unlock, timing each acquisition against start (µs on clk).
// It returns at the first error other than ctx ending, with what was done so
// far.
func Contend(ctx context.Context, c Contender, clk *WallClock, start int64, cfg LoopConfig) (r Result, err error) {
	since := func() time.Duration { return time.Duration(clk.Now()-start) * time.Microsecond }
	var acq, rel Tally
	defer func() {
		r.End = since()
		r.Requests.Acquire, r.Requests.Release = acq.n.Load(), rel.n.Load()
		if rc, ok := c.(RequestCounter); ok {
			r.Requests.Background = rc.BackgroundRequests()
		}
	}()
	for n := 0; cfg.K == 0 || n < cfg.K; n++ {
		t0 := since()
		h, err := c.Lock(WithTally(ctx, &acq), cfg.ID)
		if err != nil {
			if cfg.K == 0 && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return r, nil // the run's time is up
			}
			return r, fmt.Errorf("acquisition %d: %w", n+1, err)
		}
		t1 := since()
		r.Waits = append(r.Waits, t1-t0)
		r.At = append(r.At, t1)
		// The hold and the release must complete even when the run's time
		// ends meanwhile, or the lock would be left to its TTL.
		_ = clk.Sleep(context.WithoutCancel(ctx), cfg.Hold)
		r.Released = append(r.Released, since())
		if err := h.Unlock(WithTally(context.WithoutCancel(ctx), &rel)); err != nil {
			return r, fmt.Errorf("release %d: %w", n+1, err)
		}
	}
	return r, nil
}

// WallClock is lockstep's clock.Local as far as the loop needs it:
// wall-clock microseconds that never go backwards, and sleeping on a real
// timer.
//
// Safe for concurrent use.
type WallClock struct{ last atomic.Int64 }

// Now returns wall-clock microseconds, never less than a value it returned
// before.
func (c *WallClock) Now() int64 {
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

// Sleep waits for d or until ctx is done, returning ctx.Err() then.
func (c *WallClock) Sleep(ctx context.Context, d time.Duration) error {
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
