package sim

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
)

// pendingWrite is a granted write that fewer than W replicas applied yet.
type pendingWrite struct {
	m      *model.Mutation
	failed bool // can no longer reach W replicas: it times out when granted
}

// Runnable returns the yields the scheduler may grant now, in a
// deterministic order (by process, then by the goroutine's label): sleeps
// whose deadline has passed, store requests not served yet, writes that
// enough replicas have acknowledged, goroutines waiting to start or to go
// on, of live processes that are not paused.
func (s *Sim) Runnable() []*Yield {
	now := s.now.Load()
	s.mu.Lock()
	var out []*Yield
	for _, y := range s.yields {
		p := y.Proc
		if p.crashed || now < p.pausedUntil {
			continue
		}
		if y.Kind == Sleep && y.Deadline > now {
			continue
		}
		if y.pending != nil && !y.pending.failed && !s.acked(p, y.pending.m) {
			continue
		}
		out = append(out, y)
	}
	s.mu.Unlock()
	sortYields(out)
	return out
}

// Requests returns the store requests of live, unpaused processes that the
// scheduler may time out, in the same order as Runnable.
func (s *Sim) Requests() []*Yield {
	now := s.now.Load()
	s.mu.Lock()
	var out []*Yield
	for _, y := range s.yields {
		if y.Kind.store() && !y.Proc.crashed && now >= y.Proc.pausedUntil {
			out = append(out, y)
		}
	}
	s.mu.Unlock()
	sortYields(out)
	return out
}

func sortYields(ys []*Yield) {
	slices.SortFunc(ys, func(a, b *Yield) int {
		if c := cmp.Compare(a.Proc.Index, b.Proc.Index); c != 0 {
			return c
		}
		return slices.Compare(a.label, b.label)
	})
}

// Step grants one runnable yield chosen by ch, first moving time to the next
// moment something becomes runnable if nothing is. It reports false if
// nothing can ever run.
func (s *Sim) Step(ch Chooser) bool {
	ys := s.Runnable()
	for len(ys) == 0 {
		if !s.Tick() {
			return false
		}
		ys = s.Runnable()
	}
	s.Grant(ys[ch.Choose("yield", len(ys))], ch)
	return true
}

// Grant lets y proceed: a sleep ends; a read is served by the replicas ch
// picks; a write is applied at once by the replicas ch picks (if fewer than
// W, its caller keeps waiting for deliveries of the rest); an acknowledged
// write returns. Then Grant waits for the bubble to settle.
func (s *Sim) Grant(y *Yield, ch Chooser) {
	s.trace("grant %v (goroutine %s)", y, y.label)
	switch {
	case y.Kind == Sleep || y.Kind == Start:
		s.finish(y, result{})
	case y.Kind == Resume:
		s.finish(y, result{err: y.cause})
	case y.Kind == Read:
		sets, ok := s.readSets(y.Proc, y.Coord)
		if !ok {
			s.finish(y, result{err: fmt.Errorf("%w: read at %v", ErrUnavailable, y.Proc.read)})
			break
		}
		s.sent(y)
		cells, err := s.cluster.Read(y.Coord, sets[ch.Choose("read replicas", len(sets))], y.Table, y.Row, y.Slice)
		if err == nil {
			if err = s.refusal(y); err != nil {
				cells = nil
			}
		}
		s.finish(y, result{cells: cells, err: err})
	case y.pending != nil && y.pending.failed:
		s.finish(y, result{err: fmt.Errorf("%w: %w", ErrTimeout, lockstep.ErrUnknownOutcome)})
	case y.pending != nil:
		s.finish(y, result{err: s.refusal(y)})
	default:
		sets, ok := s.writeSets(y.Proc, y.Coord)
		if !ok {
			s.finish(y, result{err: fmt.Errorf("%w: write at %v", ErrUnavailable, y.Proc.write)})
			break
		}
		m, err := s.write(y, sets[ch.Choose("write replicas", len(sets))])
		switch {
		case err != nil:
			s.finish(y, result{err: err})
		case s.acked(y.Proc, m):
			s.finish(y, result{err: s.refusal(y)})
		default:
			y.pending = &pendingWrite{m: m}
		}
	}
	s.Settle()
}

// Timeout fails store request y (one of Requests) as a client timeout does:
// a write not yet sent is applied by the replicas ch picks, possibly none,
// and the rest stay in flight; the caller gets an error wrapping ErrTimeout
// and, for writes, lockstep.ErrUnknownOutcome.
func (s *Sim) Timeout(y *Yield, ch Chooser) {
	s.trace("time out %v (goroutine %s)", y, y.label)
	err := fmt.Errorf("%w", ErrTimeout)
	if y.Kind != Read {
		err = fmt.Errorf("%w: %w", ErrTimeout, lockstep.ErrUnknownOutcome)
		if y.pending == nil {
			sets := s.allSets(y.Proc, y.Coord)
			if _, werr := s.write(y, sets[ch.Choose("timed-out write replicas", len(sets))]); werr != nil {
				err = werr
			}
		}
	}
	s.finish(y, result{err: err})
	s.Settle()
}

// write sends y's mutation, applied now by the replicas in now.
func (s *Sim) write(y *Yield, now []int) (*model.Mutation, error) {
	var cells []model.StoredCell
	if y.Kind == Put {
		var err error
		if cells, err = s.cluster.Prepare(y.Coord, y.Cells); err != nil {
			return nil, err
		}
		if len(y.Columns) > 0 { // PutDelete: one mutation
			cells = append(s.cluster.PrepareDelete(y.Coord, y.TS, y.Columns), cells...)
		}
	} else {
		cells = s.cluster.PrepareDelete(y.Coord, y.TS, y.Columns)
	}
	s.sent(y)
	m := s.cluster.Write(y.Table, y.Row, cells, now)
	m.Coord = y.Coord
	return m, nil
}

func (s *Sim) sent(y *Yield) {
	if s.OnStore != nil {
		s.OnStore(StoreEvent{Yield: y})
	}
}

// Messages returns how many messages are in flight.
func (s *Sim) Messages() int { return len(s.cluster.Pending()) }

// Deliver delivers message k (of Messages) to its replica.
func (s *Sim) Deliver(k int) {
	s.trace("deliver message %d", k)
	s.cluster.Deliver(k)
}

// Drop loses message k (of Messages): a hint that never arrives. A write
// whose caller still waits and that can no longer reach W replicas times out
// at once (as its coordinator's write timeout would), with an error wrapping
// ErrTimeout and lockstep.ErrUnknownOutcome.
func (s *Sim) Drop(k int) {
	s.trace("drop message %d", k)
	m := s.cluster.Drop(k).Mutation
	reachable := append([]bool{}, m.Applied...)
	for _, msg := range s.cluster.Pending() {
		if msg.Mutation == m {
			reachable[msg.Replica] = true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, y := range s.yields {
		if y.pending != nil && y.pending.m == m && !s.acked(y.Proc, &model.Mutation{Applied: reachable, Coord: m.Coord}) {
			y.pending.failed = true // Grant returns the timeout
		}
	}
}

// Crash stops p for good (see the package documentation) and waits for its
// goroutines to run down.
func (s *Sim) Crash(p *Process) {
	if !p.crashed {
		s.trace("crash %s", p.Name)
		p.crash()
	}
}

// Pause stops granting p's yields for d of virtual time from now.
func (s *Sim) Pause(p *Process, d time.Duration) {
	s.trace("pause %s for %v", p.Name, d)
	p.pausedUntil = s.now.Load() + d.Microseconds()
}

// SetSkew sets how far p's wall clock reads ahead of virtual time. The clock
// never goes back (as clock.Local): after a negative step it stands still
// until caught up. p's elapsed time, which its sleeps and leases run on, is
// virtual time whatever the skew.
func (s *Sim) SetSkew(p *Process, d time.Duration) { p.skew.Store(d.Microseconds()) }

// StepWall steps p's wall clock by d, as NTP or an operator steps a system
// clock: its skew changes by d, its elapsed time not at all.
func (s *Sim) StepWall(p *Process, d time.Duration) { p.skew.Add(d.Microseconds()) }

// SetReplicaSkew sets how far replica i's clock reads ahead of virtual time.
func (s *Sim) SetReplicaSkew(i int, d time.Duration) { s.cluster.SetReplicaSkew(i, d) }

// Goroutine names the simulated goroutine that made y by its place in its
// process's tree of goroutines ("0.2.1": the second goroutine that root 0's
// third child started), for a checker that pairs the requests of one
// goroutine, or tells a goroutine's from those of the goroutines it started.
func (y *Yield) Goroutine() string { return y.label.String() }

// String describes y for logs.
func (y *Yield) String() string {
	switch y.Kind {
	case Sleep:
		return fmt.Sprintf("%s sleep until %d", y.Proc.Name, y.Deadline)
	case Start, Resume:
		return fmt.Sprintf("%s %s goroutine %s", y.Proc.Name, y.Kind, y.label)
	case Read:
		return fmt.Sprintf("%s read %s/%s from %q", y.Proc.Name, y.Table, y.Row, y.Slice.From)
	case Put:
		cols := make([]string, len(y.Cells))
		for i, c := range y.Cells {
			cols[i] = c.Column
		}
		if len(y.Columns) > 0 {
			return fmt.Sprintf("%s put %s/%s %v deleting %v", y.Proc.Name, y.Table, y.Row, cols, y.Columns)
		}
		return fmt.Sprintf("%s put %s/%s %v", y.Proc.Name, y.Table, y.Row, cols)
	}
	return fmt.Sprintf("%s delete %s/%s %v", y.Proc.Name, y.Table, y.Row, y.Columns)
}
