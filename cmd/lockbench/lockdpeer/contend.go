package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// contender is a lock implementation as the loop sees it (lockbench's
// contender, cmd/lockbench/algorithms.go).
type contender interface {
	Lock(ctx context.Context, id string) (unlocker, error)
	Close(ctx context.Context) error
}

// unlocker is a held lock.
type unlocker interface {
	Unlock(ctx context.Context) error
}

// requestCounter is implemented by contenders that count their requests
// made outside any tally.
type requestCounter interface {
	backgroundRequests() int64
}

// tally counts the requests made on one call path — inside Lock calls, or
// inside Unlock calls — marked by putting it into the ctx of those calls
// (lockbench's tally, which also splits the count by kind; only the total
// is reported).
//
// Safe for concurrent use.
type tally struct{ n atomic.Int64 }

type tallyKey struct{}

// withTally returns ctx carrying t.
func withTally(ctx context.Context, t *tally) context.Context {
	return context.WithValue(ctx, tallyKey{}, t)
}

// tallyOf returns the tally ctx carries, or nil.
func tallyOf(ctx context.Context) *tally {
	t, _ := ctx.Value(tallyKey{}).(*tally)
	return t
}

// loopConfig is the work of one process.
type loopConfig struct {
	id   string        // the lock id everybody takes
	k    int           // acquisitions to make; 0 means until ctx ends
	hold time.Duration // how long each acquisition holds the lock
}

// contend runs the process's loop, the same as lockbench's contend
// (cmd/lockbench/contend.go): cfg.k times, or until ctx ends when cfg.k is
// 0, Lock, hold, Unlock, timing each acquisition against start (µs on clk).
// It returns at the first error other than ctx ending, with what was done so
// far.
func contend(ctx context.Context, c contender, clk *wallClock, start int64, cfg loopConfig) (r procResult, err error) {
	since := func() time.Duration { return time.Duration(clk.Now()-start) * time.Microsecond }
	var acq, rel tally
	defer func() {
		r.End = since()
		r.Requests.Acquire, r.Requests.Release = acq.n.Load(), rel.n.Load()
		if rc, ok := c.(requestCounter); ok {
			r.Requests.Background = rc.backgroundRequests()
		}
	}()
	for n := 0; cfg.k == 0 || n < cfg.k; n++ {
		t0 := since()
		h, err := c.Lock(withTally(ctx, &acq), cfg.id)
		if err != nil {
			if cfg.k == 0 && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return r, nil // the run's time is up
			}
			return r, fmt.Errorf("acquisition %d: %w", n+1, err)
		}
		t1 := since()
		r.Waits = append(r.Waits, t1-t0)
		r.At = append(r.At, t1)
		// The hold and the release must complete even when the run's time
		// ends meanwhile, or the lock would be left to its TTL.
		_ = clk.Sleep(context.WithoutCancel(ctx), cfg.hold)
		r.Released = append(r.Released, since())
		if err := h.Unlock(withTally(context.WithoutCancel(ctx), &rel)); err != nil {
			return r, fmt.Errorf("release %d: %w", n+1, err)
		}
	}
	return r, nil
}
