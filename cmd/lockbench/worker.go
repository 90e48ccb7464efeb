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

// On the real backend every process of a run is a separate OS process:
// lockbench re-executes itself with -worker and a JSON workerJob, or, for
// etcd, runs the etcd peer (etcdpeer.go) with the same flag and job. The
// protocol, one JSON line at a time:
//
//	worker → parent  {"ready":true}            connected, locker built
//	parent → worker  {"start":…,"until":…}     once every worker is ready
//	worker → parent  {"result":{…}}            or {"error":"…"}
//
// start and until are wall-clock microseconds since the Unix epoch: the
// processes share the machine's clock, so their acquisition moments are
// comparable, and all begin at the same instant.

// workerJob is one worker's work.
type workerJob struct {
	Algorithm algorithm `json:"algorithm"`
	Process   string    `json:"process"` // process id, unique across runs
	Hosts     []string  `json:"hosts"`
	Keyspace  string    `json:"keyspace"`
	Etcd      []string  `json:"etcd,omitempty"`
	// Lockd is the base URL of the lockd under test (algoLockd).
	Lockd  string        `json:"lockd,omitempty"`
	LockID string        `json:"lock_id"`
	K      int           `json:"k"` // acquisitions; 0: until the run's end
	Hold   time.Duration `json:"hold"`
	Poll   time.Duration `json:"poll"`
	// SlowPoll is queuelock.Options.SlowPoll (0: its default).
	SlowPoll time.Duration `json:"slow_poll,omitempty"`
	// WakeKey is the fleet's wake-up key (algoNewWake, peerswake.go).
	WakeKey []byte `json:"wake_key,omitempty"`
	// Fencing: every acquisition draws a fencing token (lockerParams.fencing).
	Fencing bool `json:"fencing,omitempty"`
	// LocalHandoff and Retain are new-local's and new-retain's
	// (lockerParams.local and retain).
	LocalHandoff int           `json:"local_handoff,omitempty"`
	Retain       time.Duration `json:"retain,omitempty"`
	// exe is the executable that runs the job; empty: this one.
	exe string
}

// workerStart releases the workers.
type workerStart struct {
	Start int64 `json:"start"`           // µs since the epoch
	Until int64 `json:"until,omitempty"` // µs since the epoch; 0: none
}

// workerReport is a line a worker writes.
type workerReport struct {
	Ready  bool        `json:"ready,omitempty"`
	Result *procResult `json:"result,omitempty"`
	Error  string      `json:"error,omitempty"`
}

// runWorker is the -worker mode: build the job's contender, warm it up,
// report ready, wait for the start line on in, run, report the result on
// out.
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
	c, err := newRealContender(job)
	if err != nil {
		return fail(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	}()
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
	clk := &clock.Local{}
	_ = clk.Sleep(ctx, time.Until(time.UnixMicro(st.Start)))
	res, err := contend(ctx, c, clk, st.Start, loopConfig{id: job.LockID, k: job.K, hold: job.Hold})
	if err != nil {
		return fail(fmt.Errorf("process %s: %w", job.Process, err))
	}
	return enc.Encode(workerReport{Result: &res})
}

// warmUp takes and releases a lock of an id of the worker's own once, so
// that connections are open and statements prepared before the measured
// run: otherwise every process's first acquisition pays for them, which
// says nothing about the algorithm.
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

// newRealContender builds the contender a job names, connected to its
// backend.
func newRealContender(job workerJob) (contender, error) {
	switch job.Algorithm {
	case algoEtcd, algoEtcdLock, algoEtcdNextRev:
		return nil, fmt.Errorf("the %s algorithm runs in the etcd peer (%s), not in lockbench", job.Algorithm, etcdPeerRepoDir)
	case algoLockd:
		return nil, fmt.Errorf("the lockd algorithm runs in the lockd peer (%s), not in lockbench", lockdPeerRepoDir)
	case algoLWT, algoLWTNaive:
		s, err := connect(job.Hosts)
		if err != nil {
			return nil, err
		}
		return sessionContender{contender: newLWTLocker(job.Algorithm, s, job.Keyspace, job.Process, job.Poll), close: s.Close}, nil
	}
	if job.Algorithm == algoNewWake || job.Algorithm == algoNewHandoff {
		return newWakeContender(job)
	}
	s, err := connect(job.Hosts)
	if err != nil {
		return nil, err
	}
	store, err := newCassandraStore(s, job.Keyspace)
	if err != nil {
		s.Close()
		return nil, err
	}
	c, err := newLockstepContender(job.Algorithm, lockerParams{store: store, process: job.Process, poll: job.Poll, slow: job.SlowPoll,
		fencing: job.Fencing, local: job.LocalHandoff, retain: job.Retain})
	if err != nil {
		s.Close()
		return nil, err
	}
	return sessionContender{contender: c, close: s.Close}, nil
}

// sessionContender closes the gocql session after the contender.
type sessionContender struct {
	contender
	close func()
}

func (c sessionContender) Close(ctx context.Context) error {
	defer c.close()
	return c.contender.Close(ctx)
}

func (c sessionContender) slowestRequest() (time.Duration, int64) {
	if sr, ok := c.contender.(slowestReporter); ok {
		return sr.slowestRequest()
	}
	return 0, 0
}

func (c sessionContender) resetSlowest() {
	if sr, ok := c.contender.(slowestReporter); ok {
		sr.resetSlowest()
	}
}

func (c sessionContender) storeReads() int64 {
	if rc, ok := c.contender.(readCounter); ok {
		return rc.storeReads()
	}
	return 0
}

func (c sessionContender) backgroundRequests() int64 {
	if rc, ok := c.contender.(requestCounter); ok {
		return rc.backgroundRequests()
	}
	return 0
}

// workerStartup bounds how long a worker may take to connect.
const workerStartup = 2 * time.Minute

// runWorkers runs jobs as worker processes (each job's executable, by
// default this one, with -worker), starts them together once all are
// ready, and returns their results in job order. With until > 0 they stop acquiring that long after the start.
// If anything fails, the workers still running are killed.
func runWorkers(jobs []workerJob, until time.Duration) ([]procResult, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this executable to run workers: %w", err)
	}
	ws := make([]*worker, 0, len(jobs))
	defer func() {
		for _, w := range ws {
			w.stop()
		}
	}()
	for _, job := range jobs {
		exe := job.exe
		if exe == "" {
			exe = self
		}
		w, err := startWorker(exe, job)
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	for _, w := range ws {
		if _, err := w.next(workerStartup); err != nil {
			return nil, fmt.Errorf("worker %s starting: %w", w.job.Process, err)
		}
	}
	st := workerStart{Start: time.Now().Add(200 * time.Millisecond).UnixMicro()}
	if until > 0 {
		st.Until = st.Start + until.Microseconds()
	}
	for _, w := range ws {
		if err := json.NewEncoder(w.stdin).Encode(st); err != nil {
			return nil, fmt.Errorf("starting worker %s: %w", w.job.Process, err)
		}
		w.stdin.Close()
	}
	out := make([]procResult, len(ws))
	for i, w := range ws {
		rep, err := w.next(0)
		if err != nil {
			return nil, fmt.Errorf("worker %s: %w", w.job.Process, err)
		}
		if rep.Result == nil {
			return nil, fmt.Errorf("worker %s sent no result", w.job.Process)
		}
		out[i] = *rep.Result
		if err := w.cmd.Wait(); err != nil {
			return nil, fmt.Errorf("worker %s: %w", w.job.Process, err)
		}
		w.cmd = nil
	}
	return out, nil
}

// worker is one running worker process.
type worker struct {
	job   workerJob
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan workerReport // closed after the last report, readErr set
	// readErr is why the worker's output ended; read only after lines is
	// closed.
	readErr error
}

func startWorker(exe string, job workerJob) (*worker, error) {
	b, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-worker", string(b))
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
	w := &worker{job: job, cmd: cmd, stdin: stdin, lines: make(chan workerReport, 2)}
	go w.read(stdout)
	return w, nil
}

// read decodes the worker's report lines until its stdout closes.
func (w *worker) read(stdout io.Reader) {
	defer close(w.lines)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<30) // results carry every wait
	for sc.Scan() {
		var rep workerReport
		if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
			w.readErr = fmt.Errorf("bad report line %q: %w", sc.Text(), err)
			return
		}
		w.lines <- rep
	}
	w.readErr = sc.Err()
	if w.readErr == nil {
		w.readErr = io.ErrUnexpectedEOF
	}
}

// next returns the worker's next report, waiting at most timeout (0: no
// limit). A report carrying an error is returned as that error.
func (w *worker) next(timeout time.Duration) (workerReport, error) {
	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	select {
	case rep, ok := <-w.lines:
		if !ok {
			// The worker closed its output: say how it ended.
			err := w.readErr
			if werr := w.cmd.Wait(); werr != nil {
				err = fmt.Errorf("%w (%v)", err, werr)
			}
			w.cmd = nil
			return workerReport{}, fmt.Errorf("no report: %w", err)
		}
		if rep.Error != "" {
			return rep, errors.New(rep.Error)
		}
		return rep, nil
	case <-expire:
		return workerReport{}, fmt.Errorf("no report within %v", timeout)
	}
}

// stop kills the worker if it still runs, and reaps it.
func (w *worker) stop() {
	if w.cmd == nil {
		return
	}
	_ = w.cmd.Process.Kill()
	_ = w.cmd.Wait()
}
