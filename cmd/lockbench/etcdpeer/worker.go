package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// workerJob is the part of lockbench's workerJob (cmd/lockbench/worker.go)
// the etcd peer reads; the JSON carries more, which is ignored.
type workerJob struct {
	// Algorithm is "etcd" (concurrency.Mutex) or "etcd-lock" (the lock
	// service's RPCs).
	Algorithm string        `json:"algorithm"`
	Process   string        `json:"process"` // process id, unique across runs
	Etcd      []string      `json:"etcd"`    // endpoints
	LockID    string        `json:"lock_id"`
	K         int           `json:"k"` // acquisitions; 0: until the run's end
	Hold      time.Duration `json:"hold"`
}

// workerStart releases the workers (lockbench's workerStart).
type workerStart struct {
	Start int64 `json:"start"`           // µs since the epoch
	Until int64 `json:"until,omitempty"` // µs since the epoch; 0: none
}

// workerReport is a line the worker writes (lockbench's workerReport).
type workerReport struct {
	Ready  bool        `json:"ready,omitempty"`
	Result *procResult `json:"result,omitempty"`
	Error  string      `json:"error,omitempty"`
}

// procResult is what the process did, in durations since the run's common
// start (lockbench's procResult, cmd/lockbench/contend.go).
type procResult struct {
	Waits    []time.Duration `json:"waits"`    // per acquisition, calling Lock to its return
	At       []time.Duration `json:"at"`       // per acquisition, when Lock returned
	Released []time.Duration `json:"released"` // per acquisition, when Unlock was called
	End      time.Duration   `json:"end"`      // when the loop ended
	Requests requestCounts   `json:"requests"`
	// Plain is the latency of plain requests to etcd (a Range of one key)
	// made after the loop (lockbench's procResult.Plain).
	Plain []time.Duration `json:"plain,omitempty"`
}

// requestCounts splits the process's requests by the path that made them
// (lockbench's requestCounts).
type requestCounts struct {
	Acquire    int64 `json:"acquire"`    // inside Lock calls, sequential
	Release    int64 `json:"release"`    // inside Unlock calls, sequential
	Background int64 `json:"background"` // anything else
}

// workerStartup bounds how long the worker may take to connect and warm up
// (lockbench waits as long for its ready line).
const workerStartup = 2 * time.Minute

// runWorker runs one job: build the etcd locker, warm it up, report ready,
// wait for the start line on in, run, report the result on out.
func runWorker(jobJSON string, in io.Reader, out io.Writer) error {
	var job workerJob
	if err := json.Unmarshal([]byte(jobJSON), &job); err != nil {
		return fmt.Errorf("worker job: %w", err)
	}
	enc := json.NewEncoder(out)
	fail := func(err error) error {
		_ = enc.Encode(workerReport{Error: err.Error()})
		return err
	}
	if len(job.Etcd) == 0 {
		return fail(errors.New("worker job names no etcd endpoint"))
	}
	var c contender
	switch job.Algorithm {
	case "etcd", "etcd-lock":
		l, err := newEtcdLocker(job.Etcd, job.Process)
		if err != nil {
			return fail(err)
		}
		c = l
		if job.Algorithm == "etcd-lock" {
			c = etcdLockService{l}
		}
	default:
		return fail(fmt.Errorf("the etcd peer runs the algorithms etcd and etcd-lock, not %q", job.Algorithm))
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	}()
	return serve(c, job, in, enc)
}

// serve is runWorker once the contender is built: warm-up, ready, start,
// the loop and its report. It mirrors lockbench's runWorker.
func serve(c contender, job workerJob, in io.Reader, enc *json.Encoder) error {
	fail := func(err error) error {
		_ = enc.Encode(workerReport{Error: err.Error()})
		return err
	}
	if err := warmUp(c, job); err != nil {
		return fail(err)
	}
	if err := enc.Encode(workerReport{Ready: true}); err != nil {
		return err
	}
	var st workerStart
	if err := json.NewDecoder(in).Decode(&st); err != nil {
		return fail(fmt.Errorf("reading the start line: %w", err))
	}
	ctx := context.Background()
	if st.Until > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.UnixMicro(st.Until))
		defer cancel()
	}
	clk := &wallClock{}
	_ = clk.Sleep(ctx, time.Until(time.UnixMicro(st.Start)))
	res, err := contend(ctx, c, clk, st.Start, loopConfig{id: job.LockID, k: job.K, hold: job.Hold})
	if err != nil {
		return fail(fmt.Errorf("process %s: %w", job.Process, err))
	}
	if p, ok := c.(plainRequester); ok {
		if res.Plain, err = timePlain(p, plainRequests); err != nil {
			return fail(fmt.Errorf("process %s: plain request: %w", job.Process, err))
		}
	}
	return enc.Encode(workerReport{Result: &res})
}

// plainRequests is how many plain requests a worker times after its loop
// (the lockd peer's, cmd/lockbench/lockdpeer/worker.go).
const plainRequests = 100

// plainRequester is a contender that can make a plain request to its
// service: one round trip that takes no lock.
type plainRequester interface {
	plain(ctx context.Context) error
}

// timePlain makes n plain requests one after another and returns their
// latencies.
func timePlain(p plainRequester, n int) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), workerStartup)
	defer cancel()
	out := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		if err := p.plain(ctx); err != nil {
			return out, err
		}
		out = append(out, time.Since(t0))
	}
	return out, nil
}

// warmUp takes and releases a lock of an id of the worker's own once, so
// that the connection is open before the measured run (lockbench's warmUp).
func warmUp(c contender, job workerJob) error {
	ctx, cancel := context.WithTimeout(context.Background(), workerStartup)
	defer cancel()
	// Its requests go to a tally of their own, not to the run's background.
	ctx = withTally(ctx, &tally{})
	h, err := c.Lock(ctx, job.LockID+"/warm-up/"+job.Process)
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	if err := h.Unlock(ctx); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return nil
}

// wallClock is lockstep's clock.Local as far as the loop needs it:
// wall-clock microseconds that never go backwards, and sleeping on a real
// timer.
//
// Safe for concurrent use.
type wallClock struct{ last atomic.Int64 }

// Now returns wall-clock microseconds, never less than a value it returned
// before.
func (c *wallClock) Now() int64 {
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
func (c *wallClock) Sleep(ctx context.Context, d time.Duration) error {
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
