package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
)

// procResult is what one process did in a seed or peers run. Times are
// durations since the run's common start. It travels as JSON from worker
// processes on the real backend.
type procResult struct {
	// Waits is, per acquisition, the time from calling Lock to its return.
	Waits []time.Duration `json:"waits"`
	// At is, per acquisition, when Lock returned: the seed's figures 1–2
	// plot these.
	At []time.Duration `json:"at"`
	// Released is, per acquisition, when Unlock was called: the start of a
	// handoff.
	Released []time.Duration `json:"released"`
	// End is when the process's loop ended.
	End time.Duration `json:"end"`
	// Requests counts the store requests of the process.
	Requests requestCounts `json:"requests"`
	// Plain is, for the lockd and etcd peers' workers, the latency of plain
	// requests to their service made after the loop (a KeepAlive to lockd,
	// a Get to etcd): one round trip that takes no lock (service.go).
	Plain []time.Duration `json:"plain,omitempty"`
	// Slowest is the process's longest store request, and SlowestAt when it
	// began: a stall of the store (or of the process) shows here. Zero for
	// backends that are not timed (LWT, etcd).
	Slowest   time.Duration `json:"slowest,omitempty"`
	SlowestAt time.Duration `json:"slowest_at,omitempty"`
}

// requestCounts splits a process's store requests by the path that made
// them.
type requestCounts struct {
	Acquire    int64 `json:"acquire"`    // inside Lock calls, sequential
	Release    int64 `json:"release"`    // inside Unlock calls, sequential
	Background int64 `json:"background"` // renewals and anything else
	// Reads counts the store reads of the process, on every path (0 for
	// contenders that do not count them: LWT, etcd).
	Reads int64 `json:"reads,omitempty"`
}

// loopConfig is the work of one process.
type loopConfig struct {
	id   string        // the lock id everybody takes
	k    int           // acquisitions to make; 0 means until ctx ends
	hold time.Duration // how long each acquisition holds the lock
}

// requestCounter is implemented by contenders that count their requests
// made outside any tally (see countingStore).
type requestCounter interface {
	backgroundRequests() int64
}

// readCounter is implemented by contenders that count their store reads.
type readCounter interface {
	storeReads() int64
}

// slowestReporter is implemented by contenders that time their store
// requests: the longest since resetSlowest, and when it began (µs on the
// process's clock).
type slowestReporter interface {
	slowestRequest() (time.Duration, int64)
	resetSlowest()
}

// contend runs one process's loop: cfg.k times (or until ctx ends, when cfg.k
// is 0) Lock, hold, Unlock, on clk, timing each acquisition against start
// (µs on clk). Requests of each Lock and Unlock are counted through a tally in
// their ctx. It returns at the first error other than ctx ending, with what
// was done so far.
func contend(ctx context.Context, c contender, clk lockstep.Clock, start int64, cfg loopConfig) (r procResult, err error) {
	since := func() time.Duration { return time.Duration(clk.Now()-start) * time.Microsecond }
	var acq, rel tally
	var reads0 int64 // reads before the loop: the warm-up's
	defer func() {
		r.End = since()
		r.Requests.Acquire, r.Requests.Release = acq.total(), rel.total()
		if rc, ok := c.(requestCounter); ok {
			r.Requests.Background = rc.backgroundRequests()
		}
		if rc, ok := c.(readCounter); ok {
			r.Requests.Reads = rc.storeReads() - reads0
		}
		if sr, ok := c.(slowestReporter); ok {
			if d, at := sr.slowestRequest(); d > 0 {
				r.Slowest, r.SlowestAt = d, time.Duration(at-start)*time.Microsecond
			}
		}
	}()
	if sr, ok := c.(slowestReporter); ok {
		sr.resetSlowest() // a warm-up's requests are not the run's
	}
	if rc, ok := c.(readCounter); ok {
		reads0 = rc.storeReads()
	}
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
