package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/nemesis"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// The workers and the register of the running segment, for client pauses.
var (
	liveMu  sync.Mutex
	live    []*worker
	liveOps func() []register.Op
)

func setLive(ws []*worker, ops func() []register.Op) {
	liveMu.Lock()
	defer liveMu.Unlock()
	live, liveOps = ws, ops
}

// justRead returns the workers whose last request to the register was a
// read of the counter: they are between their reads and their writes.
func justRead(ops []register.Op) map[string]bool {
	last := map[string]register.Kind{}
	for _, o := range ops {
		last[o.Process] = o.Kind
	}
	out := map[string]bool{}
	for p, k := range last {
		if k == register.ReadCounter {
			out[p] = true
		}
	}
	return out
}

// clientPauser returns pause-client nemeses. A pause bites only when it
// stops a worker between its register reads and its writes (it then resumes
// after its lease lapsed and writes what it read before), so the nemesis
// waits up to 5 s for a worker whose last request in the register's log is
// a counter read (the workload helper's finding: random pauses often miss),
// then for one whose history ends in a successful acquire, and otherwise
// takes the worker the label hashes to.
func (r *runner) clientPauser(*segment) func(string) *nemesis.PauseClient {
	return func(label string) *nemesis.PauseClient {
		return &nemesis.PauseClient{Label: label, PID: func() (int, error) {
			liveMu.Lock()
			ws := append([]*worker(nil), live...)
			opsOf := liveOps
			liveMu.Unlock()
			if len(ws) == 0 {
				return 0, fmt.Errorf("no worker running")
			}
			h := fnv.New32a()
			h.Write([]byte(label))
			first := int(h.Sum32())
			deadline := time.Now().Add(5 * time.Second)
			for opsOf != nil && time.Now().Before(deadline) {
				read := justRead(opsOf())
				for k := range ws {
					w := ws[(first+k)%len(ws)]
					if running(w) && read[w.id] {
						return w.cmd.Process.Pid, nil
					}
				}
				time.Sleep(5 * time.Millisecond)
			}
			deadline = time.Now().Add(2 * time.Second)
			for time.Now().Before(deadline) {
				for k := range ws {
					w := ws[(first+k)%len(ws)]
					if running(w) && holding(w.history) {
						return w.cmd.Process.Pid, nil
					}
				}
				time.Sleep(20 * time.Millisecond)
			}
			for k := range ws {
				if w := ws[(first+k)%len(ws)]; running(w) {
					return w.cmd.Process.Pid, nil
				}
			}
			return 0, fmt.Errorf("every worker has exited")
		}}
	}
}

func running(w *worker) bool {
	select {
	case <-w.done:
		return false
	default:
		return true
	}
}

// holding reports whether the history's last complete line is a
// successful acquire (the worker is about to read and write).
func holding(path string) bool { return holdingSince(path, math.MinInt64) }

// holdingSince is holding, for an acquire that returned at since (ns since
// the epoch) or later.
func holdingSince(path string, since int64) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false
	}
	const tail = 4096
	off := max(0, st.Size()-tail)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return false
	}
	buf = bytes.TrimRight(buf, "\n")
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[i+1:]
	}
	var rec history.Record
	if json.Unmarshal(buf, &rec) != nil {
		return false
	}
	return rec.Op == history.Acquire && rec.Outcome == history.OK && rec.ReturnNS >= since
}
