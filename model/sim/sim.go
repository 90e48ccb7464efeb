package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/model"
)

// ErrKilled is returned by every Store call and Sleep of a crashed process.
var ErrKilled = errors.New("sim: process crashed")

// ErrTimeout is wrapped by the error of a request the scheduler timed out.
var ErrTimeout = errors.New("sim: request timed out")

// Chooser makes the scheduler's choices: Choose returns a number in
// [0, n). Zero is always the benign choice (all replicas, the first ones), so
// a shrinking chooser such as rapid's moves towards benign runs.
type Chooser interface {
	Choose(label string, n int) int
}

// Config shapes a simulation.
type Config struct {
	// Cluster configures the replicas.
	Cluster model.ClusterConfig
	// Start is the virtual time at the start, in µs. Default
	// model.DefaultStart.
	Start int64
	// TestingKnobs plant defects in the simulated stores (dc.go). Leave nil.
	TestingKnobs *TestingKnobs
}

// Sim is one simulated run: a cluster, processes and virtual time. Its
// methods (other than those of the Clock and Store it hands to processes) are
// called by one scheduler goroutine inside a synctest bubble, and each ends
// by waiting for the bubble to settle.
type Sim struct {
	cluster *model.Cluster
	now     atomic.Int64

	// OnStore, when set, is called on the scheduler goroutine whenever a
	// store request takes effect on the cluster and whenever its caller is
	// about to be released: while it runs, every simulated goroutine is
	// blocked, the request's caller among them.
	OnStore func(StoreEvent)
	// Trace, when set, is called on the scheduler goroutine with a line for
	// every decision the scheduler carries out (a grant names the goroutine
	// by its label), so that two runs can be compared event for event.
	Trace func(event string)

	mu      sync.Mutex // guards yields and threads against the simulated goroutines
	yields  []*Yield
	threads map[uint64]*thread // by runtime goroutine id

	procs  []*Process
	closed bool
	knobs  TestingKnobs
}

// StoreEvent reports a store request of a process to OnStore.
type StoreEvent struct {
	Yield *Yield
	// Done is false when the request reaches the replicas (a write is then
	// applied at some of them, maybe none) and true when its caller is
	// released with Err.
	Done bool
	Err  error
	// Cells is what a finished read returned.
	Cells []lockstep.Cell
}

// New returns a simulation with no processes. Call it inside a synctest
// bubble.
func New(cfg Config) *Sim {
	s := &Sim{threads: map[uint64]*thread{}}
	start := cfg.Start
	if start == 0 {
		start = model.DefaultStart
	}
	s.now.Store(start)
	s.cluster = model.NewCluster(baseClock{s}, cfg.Cluster)
	s.knobs = deref.Of(cfg.TestingKnobs)
	return s
}

// baseClock is virtual time; replicas add their skew to it.
type baseClock struct{ s *Sim }

func (b baseClock) Now() int64 { return b.s.now.Load() }

func (b baseClock) Elapsed() int64 { return b.s.now.Load() }

func (b baseClock) Sleep(ctx context.Context, d time.Duration) error {
	panic("sim: replicas never sleep")
}

// Cluster returns the simulated cluster.
func (s *Sim) Cluster() *model.Cluster { return s.cluster }

// Now returns virtual time in µs.
func (s *Sim) Now() int64 { return s.now.Load() }

// Processes returns the processes in the order they were added.
func (s *Sim) Processes() []*Process { return s.procs }

// Settle waits until every goroutine of the bubble is durably blocked.
func (s *Sim) Settle() { synctest.Wait() }

// Advance moves virtual time forward by d. It does not wake anyone: sleeps
// whose deadline passed become runnable, to be granted like anything else.
func (s *Sim) Advance(d time.Duration) {
	if d > 0 {
		s.now.Add(d.Microseconds())
	}
}

// Tick moves virtual time to the next moment something becomes runnable: the
// earliest deadline after now of a sleeping, live process, or the end of a
// pause. It reports false if there is no such moment.
func (s *Sim) Tick() bool {
	now := s.now.Load()
	next, ok := int64(0), false
	consider := func(t int64) {
		if t > now && (!ok || t < next) {
			next, ok = t, true
		}
	}
	s.mu.Lock()
	for _, y := range s.yields {
		if y.Kind == Sleep && !y.Proc.crashed {
			consider(y.Deadline)
		}
	}
	s.mu.Unlock()
	for _, p := range s.procs {
		if !p.crashed {
			consider(p.pausedUntil)
		}
	}
	if ok {
		s.now.Store(next)
	}
	return ok
}

// Close crashes every live process and waits for their goroutines to run
// down, so the bubble can end. It reports whether any yield is still
// registered afterwards (a goroutine that ignored its crash).
func (s *Sim) Close() (clean bool) {
	s.closed = true
	for _, p := range s.procs { // one at a time, so that their run-downs never interleave
		if !p.crashed {
			p.crash()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.yields) == 0
}

// trace reports a decision to Trace.
func (s *Sim) trace(format string, args ...any) {
	if s.Trace != nil {
		s.Trace(fmt.Sprintf("%d ", s.now.Load()) + fmt.Sprintf(format, args...))
	}
}
