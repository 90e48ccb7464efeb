package sim

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
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
	// read and write are the levels of its requests, and scope the scope
	// of its store (ScopedStore; dc.go): model.Count and global unless set.
	read, write model.Level
	scope       lockstep.Scope
	// misroute is 1 + the replica that coordinates its requests under a
	// misroute (Sim.Misroute; dc.go), 0 when they go to Coordinator.
	misroute atomic.Int32

	skew atomic.Int64 // µs
	last atomic.Int64 // µs, the clock's last reading

	ctx    context.Context
	cancel context.CancelFunc
	dead   bool // run down after a crash: yields fail at once (guarded by s.mu)

	// scheduler state
	crashed     bool
	pausedUntil int64
	roots       int32 // goroutines started by the scheduler's Process.Go
}

// AddProcess adds a live process named name, coordinated by replica
// index mod N.
func (s *Sim) AddProcess(name string) *Process {
	p := &Process{s: s, Index: len(s.procs), Name: name}
	p.Coordinator = p.Index % s.cluster.Config().Replicas
	p.ctx, p.cancel = context.WithCancel(context.Background())
	s.procs = append(s.procs, p)
	return p
}

// Context is cancelled when the process crashes; its simulated goroutines
// should derive their contexts from it.
func (p *Process) Context() context.Context { return p.ctx }

// Go starts a goroutine of the process. Called by the scheduler's goroutine,
// it starts the i-th root goroutine of the process and lets it run, alone,
// until it blocks; called by a simulated goroutine, it starts a child of that
// goroutine, as the clock's Go does (internal/lifecycle). f should block
// only at the process's yield points.
func (p *Process) Go(f func(ctx context.Context)) {
	s := p.s
	s.mu.Lock()
	_, simulated := s.threads[goid()]
	l := label{p.roots}
	p.roots++
	s.mu.Unlock()
	if simulated {
		procClock{p}.Go(func() { f(p.ctx) })
		return
	}
	go func() {
		p.enter(l)
		defer p.exit()
		f(p.ctx)
	}()
	s.Settle()
}

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

// maxRundown bounds the yields a crashed process's goroutines may still
// reach: one that keeps going after ErrKilled never ends.
const maxRundown = 100_000

// crash stops p: its contexts are cancelled, and then its yields are
// finished with ErrKilled one at a time, in the scheduler's order, each
// followed by a settle, until none is left. So a crashed process runs down
// as deterministically as it ran.
func (p *Process) crash() {
	s := p.s
	p.crashed = true
	p.cancel()
	s.Settle()
	for range maxRundown {
		s.mu.Lock()
		var mine []*Yield
		for _, y := range s.yields {
			if y.Proc == p {
				mine = append(mine, y)
			}
		}
		s.mu.Unlock()
		if len(mine) == 0 {
			break
		}
		sortYields(mine)
		s.release(mine[0], result{err: ErrKilled})
		s.Settle()
	}
	s.mu.Lock()
	p.dead = true
	s.mu.Unlock()
}

// Kind is what a yield point is waiting for.
type Kind uint8

const (
	Sleep Kind = iota
	Read
	Put
	Delete
	// Start is a new goroutine waiting to run its first instruction.
	Start
	// Resume is a goroutine that another one woke — by cancelling the
	// context of its yield, or by a hand-off (internal/lifecycle.Resumed) —
	// waiting to go on.
	Resume
)

var kindNames = [...]string{Sleep: "sleep", Read: "read", Put: "put", Delete: "delete", Start: "start", Resume: "resume"}

func (k Kind) String() string { return kindNames[k] }

// store reports whether k is a store request.
func (k Kind) store() bool { return k == Read || k == Put || k == Delete }

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
	// Coord is the replica that coordinates the request: the process's
	// Coordinator, or under a misroute the replica it was sent to.
	Coord   int
	Table   string
	Row     string
	Cells   []lockstep.Cell // Put
	Columns []string        // Delete, and the tombstones of a Put from PutDelete
	TS      int64           // Delete, and the tombstones of a Put from PutDelete
	Slice   lockstep.Slice  // Read

	label    label // the goroutine's, for a deterministic order
	cause    error // a Resume's result: the context error that woke it
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
	return st.p.block(ctx, &Yield{Coord: st.p.coord(), Kind: Put, Table: table, Row: row, Cells: slices.Clone(cells), SentAt: st.p.Now(), SentElapsed: st.p.s.now.Load()}).err
}

func (st procStore) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	return st.p.block(ctx, &Yield{Coord: st.p.coord(), Kind: Delete, Table: table, Row: row, TS: ts, Columns: slices.Clone(columns), SentAt: st.p.Now(), SentElapsed: st.p.s.now.Load()}).err
}

// PutDelete is one Put yield carrying tombstones too (lockstep.Mutator):
// one mutation, applied atomically by each replica.
func (st procStore) PutDelete(ctx context.Context, table, row string, ts int64, columns []string, cells ...lockstep.Cell) error {
	return st.p.block(ctx, &Yield{Coord: st.p.coord(), Kind: Put, Table: table, Row: row, Cells: slices.Clone(cells), TS: ts, Columns: slices.Clone(columns), SentAt: st.p.Now(), SentElapsed: st.p.s.now.Load()}).err
}

func (st procStore) Read(ctx context.Context, table, row string, s lockstep.Slice) ([]lockstep.Cell, error) {
	r := st.p.block(ctx, &Yield{Coord: st.p.coord(), Kind: Read, Table: table, Row: row, Slice: s, SentAt: st.p.Now(), SentElapsed: st.p.s.now.Load()})
	return r.cells, r.err
}

// block registers y and waits until the scheduler finishes it. When ctx
// ends first, the goroutine does not go on at once: its yield becomes a
// Resume, so that it runs only when granted and never side by side with the
// goroutine that cancelled it. A crashed process's yields are finished, with
// ErrKilled, one at a time by its run-down (Sim.Crash); once that is over,
// block fails at once.
func (p *Process) block(ctx context.Context, y *Yield) result {
	if err := ctx.Err(); err != nil {
		return result{err: err}
	}
	s := p.s
	s.mu.Lock()
	if p.dead {
		s.mu.Unlock()
		return result{err: ErrKilled}
	}
	y.Proc, y.label, y.done = p, s.selfLocked(), make(chan result, 1)
	s.addLocked(y)
	s.mu.Unlock()

	select {
	case r := <-y.done:
		return r
	case <-ctx.Done():
	}
	s.mu.Lock()
	if y.finished {
		s.mu.Unlock()
		return <-y.done
	}
	s.removeLocked(y)
	if p.dead {
		s.mu.Unlock()
		return result{err: ErrKilled}
	}
	r := &Yield{Proc: p, Kind: Resume, label: y.label, cause: ctx.Err(), done: make(chan result, 1)}
	s.addLocked(r)
	s.mu.Unlock()
	return <-r.done
}

// addLocked registers y. A goroutine waits at one yield at a time, so its
// label names the yield. Call with s.mu held.
func (s *Sim) addLocked(y *Yield) {
	for _, o := range s.yields {
		if o.Proc == y.Proc && slices.Equal(o.label, y.label) {
			panic(fmt.Sprintf("sim: goroutine %s of %s at two yields: %v and %v", y.label, y.Proc.Name, o, y))
		}
	}
	s.yields = append(s.yields, y)
}

func (s *Sim) removeLocked(y *Yield) {
	if i := slices.Index(s.yields, y); i >= 0 {
		s.yields = slices.Delete(s.yields, i, i+1)
	}
}

// finish tells OnStore that store request y is done, then releases y's
// goroutine with r. In that order: OnStore runs on the test's goroutine,
// and a goroutine released first would run beside it, so what OnStore saw
// (has the caller recorded its lock yet?) would be the Go runtime's choice.
// It was: a CI run's shrink replayed a failing schedule and got another
// failure (propertytests' queue-cell property judged the planted
// WakeGrants' grabbing write a renewal when the caller had recorded its
// hold first).
func (s *Sim) finish(y *Yield, r result) {
	if s.OnStore != nil && y.Kind.store() {
		s.OnStore(StoreEvent{Yield: y, Done: true, Err: r.err, Cells: r.cells})
	}
	s.release(y, r)
}

// release releases y's goroutine with r, telling no one: a crashed
// process's request never reached the cluster's answer.
func (s *Sim) release(y *Yield, r result) {
	s.mu.Lock()
	y.finished = true
	s.removeLocked(y)
	s.mu.Unlock()
	y.done <- r
}
