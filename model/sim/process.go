package sim

import (
	"context"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep"
)

// Process is one simulated process: a clock with its own skew, a store
// connection whose requests are coordinated by one replica, and the
// goroutines that use them. Its Clock and Store are safe for concurrent use
// by the simulated goroutines.
type Process struct {
	s     *Sim
	Index int
	Name  string
	// Coordinator is the replica that coordinates this process's requests.
	Coordinator int

	skew atomic.Int64 // µs
	last atomic.Int64 // µs, the clock's last reading

	ctx    context.Context
	cancel context.CancelFunc
	killed chan struct{}

	// scheduler state
	crashed     bool
	pausedUntil int64
}

// AddProcess adds a live process named name, coordinated by replica
// index mod N.
func (s *Sim) AddProcess(name string) *Process {
	p := &Process{s: s, Index: len(s.procs), Name: name, killed: make(chan struct{})}
	p.Coordinator = p.Index % s.cluster.Config().Replicas
	p.ctx, p.cancel = context.WithCancel(context.Background())
	s.procs = append(s.procs, p)
	return p
}

// Context is cancelled when the process crashes; its simulated goroutines
// should derive their contexts from it.
func (p *Process) Context() context.Context { return p.ctx }

// Go starts a goroutine of the process. It does not run until the
// scheduler settles; it should block only at the process's yield points.
func (p *Process) Go(f func(ctx context.Context)) { go f(p.ctx) }

// Crashed reports whether the process crashed.
func (p *Process) Crashed() bool { return p.crashed }

// Paused reports whether the process is paused at the current virtual time.
func (p *Process) Paused() bool { return p.s.now.Load() < p.pausedUntil }

// Skew returns how far the process's clock reads ahead of virtual time.
func (p *Process) Skew() time.Duration { return time.Duration(p.skew.Load()) * time.Microsecond }

// Clock returns the process's clock.
func (p *Process) Clock() lockstep.Clock { return procClock{p} }

// Store returns the process's store connection.
func (p *Process) Store() lockstep.Store { return procStore{p} }

// Now returns the process's clock: virtual time plus skew, never less than
// a reading it returned before (as clock.Local).
func (p *Process) Now() int64 {
	v := p.s.now.Load() + p.skew.Load()
	for {
		last := p.last.Load()
		if v <= last {
			return last
		}
		if p.last.CompareAndSwap(last, v) {
			return v
		}
	}
}

func (p *Process) crash() {
	p.crashed = true
	p.cancel()
	close(p.killed)
}

// Kind is what a yield point is waiting for.
type Kind uint8

const (
	Sleep Kind = iota
	Read
	Put
	Delete
)

var kindNames = [...]string{Sleep: "sleep", Read: "read", Put: "put", Delete: "delete"}

func (k Kind) String() string { return kindNames[k] }

// Yield is a simulated goroutine waiting at a yield point for the scheduler.
type Yield struct {
	Proc *Process
	Kind Kind
	// Deadline is when a Sleep may end, in virtual µs.
	Deadline int64
	// SentAt is the process's wall clock when the request was made.
	SentAt int64
	// SentElapsed is virtual time when the request was made: the true
	// moment of the send, which no clock fault moves.
	SentElapsed int64
	Table       string
	Row         string
	Cells       []lockstep.Cell // Put
	Columns     []string        // Delete
	TS          int64           // Delete
	Slice       lockstep.Slice  // Read

	key      []uintptr // call stack, for a deterministic order
	seq      uint64
	done     chan result
	finished bool
	pending  *pendingWrite // a write waiting for acknowledgements
}

type result struct {
	cells []lockstep.Cell
	err   error
}

type procClock struct{ p *Process }

func (c procClock) Now() int64 { return c.p.Now() }

// Elapsed is virtual time itself: a process's monotonic clock runs at the
// true rate and never steps, whatever its wall clock does.
func (c procClock) Elapsed() int64 { return c.p.s.now.Load() }

// Sleep is a yield point that the scheduler can grant once virtual time has
// reached now + d.
func (c procClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	us := int64((d + time.Microsecond - 1) / time.Microsecond)
	return c.p.block(ctx, &Yield{Kind: Sleep, Deadline: c.p.s.now.Load() + us}).err
}

type procStore struct{ p *Process }

func (st procStore) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	return st.p.block(ctx, &Yield{Kind: Put, Table: table, Row: row, Cells: slices.Clone(cells), SentAt: st.p.Now(), SentElapsed: st.p.s.now.Load()}).err
}

func (st procStore) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	return st.p.block(ctx, &Yield{Kind: Delete, Table: table, Row: row, TS: ts, Columns: slices.Clone(columns), SentAt: st.p.Now(), SentElapsed: st.p.s.now.Load()}).err
}

func (st procStore) Read(ctx context.Context, table, row string, s lockstep.Slice) ([]lockstep.Cell, error) {
	r := st.p.block(ctx, &Yield{Kind: Read, Table: table, Row: row, Slice: s, SentAt: st.p.Now(), SentElapsed: st.p.s.now.Load()})
	return r.cells, r.err
}

// block registers y and waits until the scheduler finishes it, ctx ends or
// the process crashes.
func (p *Process) block(ctx context.Context, y *Yield) result {
	if err := ctx.Err(); err != nil {
		return result{err: err}
	}
	var pcs [12]uintptr
	n := runtime.Callers(3, pcs[:])
	y.Proc, y.key, y.done = p, pcs[:n], make(chan result, 1)
	s := p.s
	s.mu.Lock()
	select {
	case <-p.killed:
		s.mu.Unlock()
		return result{err: ErrKilled}
	default:
	}
	s.seq++
	y.seq = s.seq
	s.yields = append(s.yields, y)
	s.mu.Unlock()

	var err error
	select {
	case r := <-y.done:
		return r
	case <-ctx.Done():
		err = ctx.Err()
	case <-p.killed:
		err = ErrKilled
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if y.finished {
		return <-y.done
	}
	s.removeLocked(y)
	return result{err: err}
}

func (s *Sim) removeLocked(y *Yield) {
	if i := slices.Index(s.yields, y); i >= 0 {
		s.yields = slices.Delete(s.yields, i, i+1)
	}
}

// finish releases y's goroutine with r.
func (s *Sim) finish(y *Yield, r result) {
	s.mu.Lock()
	y.finished = true
	s.removeLocked(y)
	s.mu.Unlock()
	y.done <- r
	if s.OnStore != nil && y.Kind != Sleep {
		s.OnStore(StoreEvent{Yield: y, Done: true, Err: r.err, Cells: r.cells})
	}
}
