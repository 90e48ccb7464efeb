package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lockstep-go/lockstep/robustness/check"
	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

// lockdSetup is how a segment runs workers through lockd: it starts
// lockdCount lockd processes (lockd/cmd/lockd; fewer for one client
// without fail-over) on its keyspace, sharing one peer key, and its last
// clients workers take their locks through them (rbworker --lockd, or the
// Python worker), each through proxies of its own (proxy.go), one per
// lockd. The first single clients are given lockd l1 alone: a failed lockd
// loses their locks, as without fail-over. The others are given every
// lockd, starting on failoverOn (0: the last), and fail over.
type lockdSetup struct {
	clients int
	single  int
	// python is how many of the clients (the last) are Python workers
	// (robustness/pyworker, the Python client), with --plant pyPlant;
	// pyLockPrefix, when set, gives them pyLocks lock ids of their own.
	python       int
	pyPlant      string
	pyLockPrefix string
	pyLocks      int
	failoverOn   int
	// lockTTL is lockd's --lock-ttl; sessionTTL the clients' session TTL.
	// The fleets keep the rule of lockd/cmd/lockd's documentation:
	// sessionTTL ≤ (lockTTL − 1s − MaxServerSkew)/2, lockd's lease window.
	lockTTL, sessionTTL time.Duration
	// minHold and hold, when set, are the lockd workers' --min-hold and
	// --hold.
	minHold, hold time.Duration
	// track plays the seeded lockd track (nemesis.LockdSchedule) beside
	// the cluster's schedule.
	track bool
	// fresh makes a lockd nemesis strike only a hold that began within the
	// last second (Holding), so that most of the hold is still ahead.
	fresh bool
	// localHandoff and retain, when set, are the lockds' --local-handoff
	// and --retain (docs/algorithms.md §4.15): the fail-over clients'
	// locks are then granted by the local-handoff layer and shared from it
	// when a peer token names them.
	localHandoff int
	retain       time.Duration
}

// The fleets' lockd timing: a lock TTL of 6 s (lease window 2 s with
// lockd's MaxServerSkew of 1 s) and sessions of 2 s, the longest the rule
// allows. A pause then outlasts 6 s, a cut 2 s.
const (
	lockdCount      = 2
	lockdLockTTL    = 6 * time.Second
	lockdSessionTTL = 2 * time.Second
	lockdMaxSkew    = time.Second // lockd's: the library's default
)

// fleetLockd is the fleets' setup: three of the workers through lockd — a
// Go client given l1 alone, a Go client and a Python client given both
// lockds, starting on l2 — and lockds that hand locks on in memory and keep
// them unlocked for a while (lockd --local-handoff 8 --retain 20ms), as a
// lockd serving hot ids runs: the fail-over clients move with locks the
// local-handoff layer granted and then shared (docs/algorithms.md §4.15).
var fleetLockd = lockdSetup{clients: 3, single: 1, python: 1, lockTTL: lockdLockTTL, sessionTTL: lockdSessionTTL, track: true,
	localHandoff: 8, retain: 20 * time.Millisecond}

// lockdWindow is lockd's lease window for a lock TTL.
func lockdWindow(lockTTL time.Duration) time.Duration {
	return (lockTTL - time.Second - lockdMaxSkew) / 2
}

// lockdProc is one lockd process of a segment.
type lockdProc struct {
	n    int
	addr string // host:port it serves on, kept across restarts
	args []string
	log  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// lockdSet is a segment's lockds, proxies and lockd events: the
// nemesis.Lockds the lockd nemeses act on.
type lockdSet struct {
	r        *runner
	name     string // the segment's, for the lockds' process ids
	setup    lockdSetup
	evidence string // the segment's --evidence, the lockds' too
	procs    []*lockdProc
	clients  []string            // worker ids through lockd
	lockdOf  map[string]int      // client → its lockd (the one it starts on)
	failover map[string]bool     // clients given every lockd
	python   map[string]bool     // clients that are Python workers
	history  map[string]string   // client → its history file
	proxies  map[string][]*proxy // client → its proxy to each lockd (while running)
	dir      string              // the segment's history directory

	mu     sync.Mutex
	events []check.LockdEvent
	counts map[nemesis.Kind]int
	// struck is when the last lockd nemesis struck (right before the
	// signal or the cut): its event's From. One lockd event runs at a time.
	struck time.Time
}

// newLockdSet plans the lockds of segment seg (index idx); start starts them.
func (r *runner) newLockdSet(seg *segment, idx int) *lockdSet {
	s := &lockdSet{r: r, name: strings.ReplaceAll(seg.name, "+", "_"), setup: seg.lockd, evidence: seg.evidence, lockdOf: map[string]int{}, history: map[string]string{},
		failover: map[string]bool{}, python: map[string]bool{}, proxies: map[string][]*proxy{}, counts: map[nemesis.Kind]int{}}
	dir := segmentDir(r, seg, idx)
	s.dir = dir
	count := lockdCount
	if seg.lockd.clients == 1 && seg.lockd.single == 1 {
		count = 1
	}
	on := seg.lockd.failoverOn
	if on == 0 {
		on = count
	}
	// The clients are the last workers before the lock-manager ones.
	last := r.workerCount(seg) - seg.lockman
	for k, i := 0, last-seg.lockd.clients; i < last; k, i = k+1, i+1 {
		id := workerID(seg, i)
		s.lockdOf[id] = 1
		if k >= seg.lockd.single {
			s.lockdOf[id], s.failover[id] = on, true
		}
		s.python[id] = k >= seg.lockd.clients-seg.lockd.python
		s.clients = append(s.clients, id)
		s.history[id] = filepath.Join(dir, id+".jsonl")
	}
	for n := 1; n <= count; n++ {
		s.procs = append(s.procs, &lockdProc{n: n, log: filepath.Join(dir, fmt.Sprintf("lockd-l%d.log", n))})
	}
	return s
}

// window points s at the history directory of one window of its segment
// (a control's later windows have directories of their own: its clients'
// histories, which the strikes read, and their moves) and forgets the last
// window's lockd events and counts (stopLockds added them up).
func (s *lockdSet) window(dir string) {
	s.dir = dir
	for _, c := range s.clients {
		s.history[c] = filepath.Join(dir, c+".jsonl")
	}
	for _, p := range s.procs {
		p.log = filepath.Join(dir, fmt.Sprintf("lockd-l%d.log", p.n))
	}
	s.mu.Lock()
	s.events, s.counts = nil, map[nemesis.Kind]int{}
	s.mu.Unlock()
}

// segmentDir is where a segment's histories and logs go.
func segmentDir(r *runner, seg *segment, idx int) string {
	return filepath.Join(r.outDir, fmt.Sprintf("%02d-%s", idx+1, seg.name))
}

// workerID is worker i's process id in seg. Process ids allow
// [A-Za-z0-9._:-]: "legacy+new" becomes "legacy_new".
func workerID(seg *segment, i int) string {
	return fmt.Sprintf("%s-w%d", strings.ReplaceAll(seg.name, "+", "_"), i)
}

// start starts the lockds on keyspace and a proxy per client.
func (s *lockdSet) start(ctx context.Context, keyspace string) error {
	// One peer key for the segment's lockds: a session's peer token from
	// one is adopted by the other (lockd --peer-key-file).
	keyFile := filepath.Join(s.dir, "peer.key")
	key := make([]byte, 48)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(key)), 0o600); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(s.dir, history.MovesDir), 0o755); err != nil {
		return err
	}
	errs := make([]error, len(s.procs))
	var wg sync.WaitGroup
	for i, p := range s.procs {
		port, err := freePort()
		if err != nil {
			return err
		}
		p.addr = fmt.Sprintf("127.0.0.1:%d", port)
		p.args = s.lockdArgs(p, keyspace, keyFile)
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = s.launch(ctx, p) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, c := range s.clients {
		s.proxies[c] = nil // a control's later window: the last one's are closed
		for _, p := range s.procs {
			px, err := newProxy(p.addr)
			if err != nil {
				return err
			}
			s.proxies[c] = append(s.proxies[c], px)
		}
	}
	return nil
}

// lockdArgs returns the flags lockd p runs with on keyspace.
func (s *lockdSet) lockdArgs(p *lockdProc, keyspace, keyFile string) []string {
	args := []string{"--hosts", strings.Join(s.r.cluster.Hosts(), ","), "--keyspace", keyspace,
		"--listen", p.addr, "--lock-ttl", s.setup.lockTTL.String(),
		"--process-id", fmt.Sprintf("%s-lockd%d", s.name, p.n),
		"--metrics=false", "--deadlock-detection=false", "--log-level", "warn", "--timeout", "5s", "--peer-key-file", keyFile}
	if s.setup.localHandoff > 0 {
		args = append(args, "--local-handoff", fmt.Sprint(s.setup.localHandoff))
	}
	if s.setup.retain > 0 {
		args = append(args, "--retain", s.setup.retain.String())
	}
	if s.evidence != "" {
		args = append(args, "--evidence", s.evidence)
	}
	return args
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// launch starts lockd p and waits until it says it serves (its first
// line), within a minute.
func (s *lockdSet) launch(ctx context.Context, p *lockdProc) error {
	logf, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.r.bin.lockd, p.args...)
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return err
	}
	// The lockd dies with the runner, whatever kills the runner.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start lockd l%d: %w", p.n, err)
	}
	done := make(chan struct{})
	p.mu.Lock()
	p.cmd, p.done = cmd, done
	p.mu.Unlock()
	serving := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		first := true
		for sc.Scan() {
			fmt.Fprintln(logf, sc.Text())
			if first && strings.HasPrefix(sc.Text(), "lockd: serving") {
				first = false
				close(serving)
			}
		}
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}()
	select {
	case <-serving:
		return nil
	case <-done:
		return fmt.Errorf("lockd l%d exited before serving (see %s)", p.n, p.log)
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Minute):
		return fmt.Errorf("lockd l%d did not serve within a minute (see %s)", p.n, p.log)
	}
}

func (p *lockdProc) running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// stop kills the lockds and closes the proxies (the workers are done, or
// the run is over).
func (s *lockdSet) stop() {
	for _, pxs := range s.proxies {
		for _, px := range pxs {
			px.Restore()
			px.Close()
		}
	}
	for _, p := range s.procs {
		_ = s.Kill(p.n)
	}
}
