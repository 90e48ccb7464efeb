package peer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Job is the part of lockbench's workerJob every peer reads; a peer embeds
// it in its own job type beside its own fields, and the JSON carries more,
// which is ignored.
type Job struct {
	Algorithm string        `json:"algorithm"`
	Process   string        `json:"process"` // process id, unique across runs
	LockID    string        `json:"lock_id"`
	K         int           `json:"k"` // acquisitions; 0: until the run's end
	Hold      time.Duration `json:"hold"`
}

// Start releases the workers (lockbench's workerStart).
type Start struct {
	Start int64 `json:"start"`           // µs since the epoch
	Until int64 `json:"until,omitempty"` // µs since the epoch; 0: none
}

// Report is a line the worker writes (lockbench's workerReport).
type Report struct {
	Ready  bool    `json:"ready,omitempty"`
	Result *Result `json:"result,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// Result is what the process did, in durations since the run's common
// start (lockbench's procResult).
type Result struct {
	Waits    []time.Duration `json:"waits"`    // per acquisition, calling Lock to its return
	At       []time.Duration `json:"at"`       // per acquisition, when Lock returned
	Released []time.Duration `json:"released"` // per acquisition, when Unlock was called
	End      time.Duration   `json:"end"`      // when the loop ended
	Requests RequestCounts   `json:"requests"`
	// Plain is the latency of the plain requests to the peer's service
	// made after the loop (lockbench's procResult.Plain).
	Plain []time.Duration `json:"plain,omitempty"`
}

// RequestCounts splits the process's requests by the path that made them
// (lockbench's requestCounts).
type RequestCounts struct {
	Acquire    int64 `json:"acquire"`    // inside Lock calls, sequential
	Release    int64 `json:"release"`    // inside Unlock calls, sequential
	Background int64 `json:"background"` // anything else
}

// Startup bounds how long a worker may take to connect and warm up
// (lockbench waits as long for its ready line).
const Startup = 2 * time.Minute

// PlainRequests is how many plain requests a worker times after its loop.
const PlainRequests = 100

// Fail writes err as the worker's error report and returns it.
func Fail(enc *json.Encoder, err error) error {
	_ = enc.Encode(Report{Error: err.Error()})
	return err
}

// Serve runs a worker once its contender is built: warm-up, the ready
// line, the start line read from in, the loop, the plain requests (if c
// makes them) and the result, written to enc. It mirrors lockbench's
// runWorker. The caller closes c.
func Serve(c Contender, job Job, in io.Reader, enc *json.Encoder) error {
	if err := warmUp(c, job); err != nil {
		return Fail(enc, err)
	}
	if err := enc.Encode(Report{Ready: true}); err != nil {
		return err
	}
	var st Start
	if err := json.NewDecoder(in).Decode(&st); err != nil {
		return Fail(enc, fmt.Errorf("reading the start line: %w", err))
	}
	ctx := context.Background()
	if st.Until > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.UnixMicro(st.Until))
		defer cancel()
	}
	clk := &WallClock{}
	_ = clk.Sleep(ctx, time.Until(time.UnixMicro(st.Start)))
	res, err := Contend(ctx, c, clk, st.Start, LoopConfig{ID: job.LockID, K: job.K, Hold: job.Hold})
	if err != nil {
		return Fail(enc, fmt.Errorf("process %s: %w", job.Process, err))
	}
	if p, ok := c.(PlainRequester); ok {
		if res.Plain, err = timePlain(p, PlainRequests); err != nil {
			return Fail(enc, fmt.Errorf("process %s: plain request: %w", job.Process, err))
		}
	}
	return enc.Encode(Report{Result: &res})
}

// timePlain makes n plain requests one after another and returns their
// latencies.
func timePlain(p PlainRequester, n int) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Startup)
	defer cancel()
	out := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		if err := p.Plain(ctx); err != nil {
			return out, err
		}
		out = append(out, time.Since(t0))
	}
	return out, nil
}

// warmUp takes and releases a lock of an id of the worker's own once, so
// that the connection is open before the measured run (lockbench's warmUp).
func warmUp(c Contender, job Job) error {
	ctx, cancel := context.WithTimeout(context.Background(), Startup)
	defer cancel()
	// Its requests go to a tally of their own, not to the run's background.
	ctx = WithTally(ctx, &Tally{})
	h, err := c.Lock(ctx, job.LockID+"/warm-up/"+job.Process)
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	if err := h.Unlock(ctx); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return nil
}
