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
// the etcd peer reads: the fields every peer reads, and etcd's endpoints.
// Algorithm is "etcd" (concurrency.Mutex), "etcd-nextrev" (the Mutex's
// queue watching from the next revision, etcdnextrev.go) or "etcd-lock"
// (the lock service's RPCs).
type workerJob struct {
	peer.Job
	Etcd []string `json:"etcd"` // endpoints
}

// runWorker runs one job: build the etcd locker, then the worker protocol
// (package peer: warm up, report ready, wait for the start line on in,
// run, report the result on out).
func runWorker(jobJSON string, in io.Reader, out io.Writer) error {
	var job workerJob
	if err := json.Unmarshal([]byte(jobJSON), &job); err != nil {
		return fmt.Errorf("worker job: %w", err)
	}
	enc := json.NewEncoder(out)
	if len(job.Etcd) == 0 {
		return peer.Fail(enc, errors.New("worker job names no etcd endpoint"))
	}
	var c peer.Contender
	switch job.Algorithm {
	case "etcd", "etcd-nextrev", "etcd-lock":
		l, err := newEtcdLocker(job.Etcd, job.Process)
		if err != nil {
			return peer.Fail(enc, err)
		}
		switch job.Algorithm {
		case "etcd":
			c = l
		case "etcd-nextrev":
			c = etcdNextRev{l}
		default:
			c = etcdLockService{l}
		}
	default:
		return peer.Fail(enc, fmt.Errorf("the etcd peer runs the algorithms etcd, etcd-nextrev and etcd-lock, not %q", job.Algorithm))
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	}()
	return peer.Serve(c, job.Job, in, enc)
}
