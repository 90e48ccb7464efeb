package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/lockstep-go/lockstep/clock"
)

// On the real backend every process of a scale run is a separate OS
// process: lockbench re-executes itself with -scale-worker and a JSON
// scaleJob, and speaks the protocol of worker.go (ready, start, result),
// with a scaleResult for a result.

// scaleJob is one scale worker's work.
type scaleJob struct {
	Algorithm algorithm     `json:"algorithm"`
	Process   string        `json:"process"`
	Hosts     []string      `json:"hosts"`
	Keyspace  string        `json:"keyspace"`
	Prefix    string        `json:"prefix"` // lock ids are Prefix/0 … Prefix/IDs-1
	IDs       int           `json:"ids"`
	Poll      time.Duration `json:"poll"`
	Seed      uint64        `json:"seed"`
}

// scaleReport is a line a scale worker writes.
type scaleReport struct {
	Ready  bool         `json:"ready,omitempty"`
	Result *scaleResult `json:"result,omitempty"`
	Error  string       `json:"error,omitempty"`
}

// runScaleWorker is the -scale-worker mode: connect, build the Locker, warm
// up, report ready, run from the start line's start to its until, report.
func runScaleWorker(jobJSON string, in io.Reader, out io.Writer) error {
	var job scaleJob
	if err := json.Unmarshal([]byte(jobJSON), &job); err != nil {
		return fmt.Errorf("scale worker job: %w", err)
	}
	enc := json.NewEncoder(out)
	fail := func(err error) error {
		_ = enc.Encode(scaleReport{Error: err.Error()})
		return err
	}
	s, err := connect(job.Hosts)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	var (
		c      contender
		counts *kindStore // nil for LWT: its statements are counted by the tallies
	)
	if isLWT(job.Algorithm) {
		c = newLWTLocker(job.Algorithm, s, job.Keyspace, job.Process, job.Poll)
	} else {
		store, err := newCassandraStore(s, job.Keyspace)
		if err != nil {
			return fail(err)
		}
		counts = &kindStore{inner: store}
		if c, err = newLockstepContender(job.Algorithm, lockerParams{store: counts, process: job.Process, poll: job.Poll}); err != nil {
			return fail(err)
		}
	}
	if err := warmUp(c, workerJob{LockID: job.Prefix, Process: job.Process}); err != nil {
		return fail(err)
	}
	if counts != nil {
		counts.reset()
	}
	if err := enc.Encode(scaleReport{Ready: true}); err != nil {
		return err
	}
	var st workerStart
	if err := json.NewDecoder(in).Decode(&st); err != nil {
		return fail(fmt.Errorf("reading the start line: %w", err))
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.UnixMicro(st.Until))
	defer cancel()
	clk := &clock.Local{}
	_ = clk.Sleep(ctx, time.Until(time.UnixMicro(st.Start)))
	var acq, rel tally
	res, err := scaleProcess(ctx, c, clk, scaleConfig{ids: job.IDs, poll: job.Poll}, job.Prefix, job.Seed, &acq, &rel)
	if err != nil {
		return fail(fmt.Errorf("process %s: %w", job.Process, err))
	}
	if counts != nil {
		res.Reads, res.Writes = counts.reads.Load(), counts.writes.Load()
	} else {
		res.Writes = acq.total() + rel.total() + c.(requestCounter).backgroundRequests()
	}
	before := heapAfterGC()
	closeCtx, cancelClose := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelClose()
	if err := c.Close(closeCtx); err != nil {
		return fail(fmt.Errorf("closing the locker of %s: %w", job.Process, err))
	}
	c = nil
	res.Heap, res.Lockers = before-heapAfterGC(), 1
	return enc.Encode(scaleReport{Result: &res})
}

// runScaleWorkers runs jobs as worker processes, starts them together once
// all are ready, lets them acquire for d and returns their results summed
// into one. If anything fails, the workers still running are killed.
func runScaleWorkers(jobs []scaleJob, d time.Duration) (scaleResult, error) {
	self, err := os.Executable()
	if err != nil {
		return scaleResult{}, fmt.Errorf("finding this executable to run workers: %w", err)
	}
	ws := make([]*scaleWorker, 0, len(jobs))
	defer func() {
		for _, w := range ws {
			w.stop()
		}
	}()
	for _, job := range jobs {
		w, err := startScaleWorker(self, job)
		if err != nil {
			return scaleResult{}, err
		}
		ws = append(ws, w)
	}
	for _, w := range ws {
		if _, err := w.next(workerStartup); err != nil {
			return scaleResult{}, fmt.Errorf("worker %s starting: %w", w.process, err)
		}
	}
	st := workerStart{Start: time.Now().Add(200 * time.Millisecond).UnixMicro()}
	st.Until = st.Start + d.Microseconds()
	for _, w := range ws {
		if err := json.NewEncoder(w.stdin).Encode(st); err != nil {
			return scaleResult{}, fmt.Errorf("starting worker %s: %w", w.process, err)
		}
		w.stdin.Close()
	}
	var total scaleResult
	for _, w := range ws {
		rep, err := w.next(d + 2*time.Minute)
		if err != nil {
			return scaleResult{}, fmt.Errorf("worker %s: %w", w.process, err)
		}
		if rep.Result == nil {
			return scaleResult{}, fmt.Errorf("worker %s sent no result", w.process)
		}
		r := rep.Result
		total.Acquisitions += r.Acquisitions
		total.Waits = append(total.Waits, r.Waits...)
		total.IDs = max(total.IDs, r.IDs)
		total.Reads += r.Reads
		total.Writes += r.Writes
		total.Heap += r.Heap
		total.Lockers += r.Lockers
		if err := w.cmd.Wait(); err != nil {
			return scaleResult{}, fmt.Errorf("worker %s: %w", w.process, err)
		}
		w.cmd = nil
	}
	return total, nil
}

// scaleWorker is one running scale worker process.
type scaleWorker struct {
	process string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan scaleReport // closed when its output ends
}

func startScaleWorker(exe string, job scaleJob) (*scaleWorker, error) {
	b, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-scale-worker", string(b))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting worker %s: %w", job.Process, err)
	}
	w := &scaleWorker{process: job.Process, cmd: cmd, stdin: stdin, lines: make(chan scaleReport, 2)}
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<30) // results carry every wait
		for sc.Scan() {
			var rep scaleReport
			if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
				rep = scaleReport{Error: fmt.Sprintf("bad report line %q: %v", sc.Text(), err)}
			}
			w.lines <- rep
		}
	}()
	return w, nil
}

// next returns the worker's next report, waiting at most timeout. A report
// carrying an error is returned as that error.
func (w *scaleWorker) next(timeout time.Duration) (scaleReport, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case rep, ok := <-w.lines:
		if !ok {
			err := errors.New("its output ended")
			if werr := w.cmd.Wait(); werr != nil {
				err = fmt.Errorf("%w (%v)", err, werr)
			}
			w.cmd = nil
			return scaleReport{}, fmt.Errorf("no report: %w", err)
		}
		if rep.Error != "" {
			return rep, errors.New(rep.Error)
		}
		return rep, nil
	case <-t.C:
		return scaleReport{}, fmt.Errorf("no report within %v", timeout)
	}
}

// stop kills the worker if it still runs, and reaps it.
func (w *scaleWorker) stop() {
	if w.cmd == nil {
		return
	}
	_ = w.cmd.Process.Kill()
	_ = w.cmd.Wait()
}
