package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// worker is one rbworker process.
type worker struct {
	id       string
	flagFile string
	history  string
	cmd      *exec.Cmd
	done     chan struct{}
	err      error
}

// workerSet tracks every worker the run started, for teardown.
type workerSet struct {
	mu  sync.Mutex
	all []*worker
}

func (s *workerSet) add(w *worker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, w)
}

// killAll sends SIGCONT (a paused worker cannot die otherwise… it can, but
// it would not flush) and SIGKILL to every worker still running, and reaps.
func (s *workerSet) killAll() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range s.all {
		select {
		case <-w.done:
			continue
		default:
		}
		_ = w.cmd.Process.Signal(syscall.SIGCONT)
		_ = w.cmd.Process.Kill()
		<-w.done
		n++
	}
	return n
}

// writeFlag sets a worker's mode (read per acquisition via migration.File).
func writeFlag(path, mode string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(mode+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// workerCount is how many workers seg runs.
func (r *runner) workerCount(seg *segment) int { return r.o.workers + seg.extra }

// spawn starts the workers of seg for d, with histories in histDir.
func (r *runner) spawn(seg *segment, idx int, keyspace, registerURL, histDir string, d time.Duration) ([]*worker, error) {
	ttl := seg.ttl
	if ttl == 0 {
		ttl = r.o.ttl
	}
	locks := seg.locks
	if locks == 0 {
		locks = r.o.locks
	}
	bin := r.bin.worker
	var ws []*worker
	n := r.workerCount(seg)
	for i := 0; i < n; i++ {
		// Process ids allow [A-Za-z0-9._:-]: "legacy+new" becomes "legacy_new".
		id := fmt.Sprintf("%s-w%d", strings.ReplaceAll(seg.name, "+", "_"), i)
		w := &worker{id: id, flagFile: filepath.Join(histDir, id+".flag"), history: filepath.Join(histDir, id+".jsonl"), done: make(chan struct{})}
		if err := writeFlag(w.flagFile, seg.modes[i%len(seg.modes)]); err != nil {
			return ws, err
		}
		hosts, dc := r.cluster.Hosts(), ""
		if seg.dcs {
			dcs := r.cluster.DCs()
			dc = dcs[i%len(dcs)]
			hosts = r.cluster.HostsIn(dc)
		}
		args := []string{
			"--hosts", strings.Join(hosts, ","),
			"--keyspace", keyspace,
			"--process", id,
			"--locks", fmt.Sprint(locks),
			"--ttl", ttl.String(),
			"--max-server-skew", r.o.maxSkew.String(),
			"--flag-file", w.flagFile,
			"--register", registerURL,
			"--history", w.history,
			"--duration", d.String(),
			"--seed", fmt.Sprint(r.o.seed*1000 + uint64(idx)*100 + uint64(i)),
			"--epoch-unix-ns", fmt.Sprint(r.epoch.UnixNano()),
		}
		if seg.hold > 0 {
			args = append(args, "--hold", seg.hold.String())
		}
		if seg.minHold > 0 {
			args = append(args, "--min-hold", seg.minHold.String())
		}
		if seg.bypass {
			args = append(args, "--bypass-migration")
		}
		if seg.evidence != "" {
			args = append(args, "--evidence", seg.evidence)
		}
		args = append(args, seg.plainArgs(i)...)
		if dc != "" {
			args = append(args, "--dc", dc)
		}
		if len(seg.coordinators) > 0 {
			node, err := r.cluster.Node(seg.coordinators[i%len(seg.coordinators)])
			if err != nil {
				return ws, err
			}
			args = append(args, "--coordinator", node.IP)
		}
		if seg.lockTimeout > 0 {
			args = append(args, "--lock-timeout", seg.lockTimeout.String())
		}
		if seg.local > 0 {
			args = append(args, "--local-share", fmt.Sprint(seg.local))
		}
		args = append(args, seg.lk.workerArgs(id)...)
		if i >= n-seg.lockman {
			lm, err := lockmanArgs(seg, histDir, id, i-(n-seg.lockman))
			if err != nil {
				return ws, err
			}
			args = append(args, lm...)
		}
		logf, err := os.Create(filepath.Join(histDir, id+".log"))
		if err != nil {
			return ws, err
		}
		w.cmd = exec.Command(bin, args...)
		if seg.lk.isPython(id) {
			hold, minHold := time.Second, time.Duration(0) // rbworker's defaults
			switch {
			case seg.lockd.hold > 0:
				hold, minHold = seg.lockd.hold, seg.lockd.minHold
			case seg.hold > 0:
				hold, minHold = seg.hold, seg.minHold
			}
			seed := r.o.seed*1000 + uint64(idx)*100 + uint64(i)
			w.cmd = exec.Command(r.bin.python, append([]string{"-B", r.bin.pyWorker}, // -B: no __pycache__ in the repository
				seg.lk.pythonArgs(id, registerURL, w.history, locks, d, seed, hold, minHold)...)...)
		}
		w.cmd.Stdout, w.cmd.Stderr = logf, logf
		// The worker dies with the runner, whatever kills the runner.
		w.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		var group *os.File
		if dc != "" {
			// Born in its data centre's client cgroup, before it opens any
			// socket: the DC partition's rules match the sockets' cgroup.
			if group, err = r.cluster.OpenClientGroup(dc); err != nil {
				logf.Close()
				return ws, err
			}
			w.cmd.SysProcAttr.UseCgroupFD, w.cmd.SysProcAttr.CgroupFD = true, int(group.Fd())
		}
		err = w.cmd.Start()
		if group != nil {
			group.Close()
		}
		if err != nil {
			logf.Close()
			return ws, fmt.Errorf("start worker %s: %w", id, err)
		}
		r.workers.add(w)
		ws = append(ws, w)
		go func() {
			w.err = w.cmd.Wait()
			logf.Close()
			close(w.done)
		}()
	}
	return ws, nil
}
