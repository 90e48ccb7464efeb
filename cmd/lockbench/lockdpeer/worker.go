package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lockstep-go/lockstep/cmd/lockbench/peer"
)

// workerJob is the part of lockbench's workerJob (cmd/lockbench/worker.go)
// the lockd peer reads: the fields every peer reads, and lockd's URL.
type workerJob struct {
	peer.Job
	Lockd string `json:"lockd"` // lockd's base URL, http://host:port
}

// runWorker runs one job: open the lockd session, then the worker protocol
// (package peer: warm up, report ready, wait for the start line on in,
// run, time the plain requests, report the result on out).
func runWorker(jobJSON string, in io.Reader, out io.Writer) error {
	var job workerJob
	if err := json.Unmarshal([]byte(jobJSON), &job); err != nil {
		return fmt.Errorf("worker job: %w", err)
	}
	enc := json.NewEncoder(out)
	if job.Lockd == "" {
		return peer.Fail(enc, errors.New("worker job names no lockd URL"))
	}
	c, err := newLockdLocker(job.Lockd, job.Process)
	if err != nil {
		return peer.Fail(enc, err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	}()
	return peer.Serve(c, job.Job, in, enc)
}
