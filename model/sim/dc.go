package sim

import (
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra/cqlstore"
	"github.com/lockstep-go/lockstep/model"
)

// Data centres (model.ClusterConfig.DCs): a process's requests are served
// at the consistency levels of its store (ScopedStore), counted for the data
// centre of its coordinator, and PartitionDCs cuts every link between two
// data centres until HealDCs.

// ErrUnavailable is wrapped by the error of a request whose level the
// replicas its coordinator reaches cannot satisfy, as Cassandra's
// UnavailableException: nothing was sent, so a write was not applied.
var ErrUnavailable = errors.New("sim: not enough replicas reachable for the consistency level")

// TestingKnobs switch on planted defects of the simulated stores, for the
// negative controls of package propertytests. Leave nil.
type TestingKnobs struct {
	// AcceptAnyLevels lets ScopedStore serve levels that cannot keep its
	// scope (a global lock at LOCAL_QUORUM), which it refuses otherwise, as
	// the Cassandra stores do (cqlstore.ValidateScope).
	AcceptAnyLevels bool
	// AcceptRemoteCoordinator lets a DC-local store take an answer that a
	// replica of another data centre coordinated (a misroute), which it
	// refuses otherwise, as the Cassandra stores do
	// (cqlstore.CheckCoordinator).
	AcceptRemoteCoordinator bool
}

// AddProcessAt adds a live process named name whose requests replica coord
// coordinates: the process lives in coord's data centre.
func (s *Sim) AddProcessAt(name string, coord int) *Process {
	p := s.AddProcess(name)
	p.Coordinator = coord
	return p
}

// DC returns the data centre of the process's coordinator.
func (p *Process) DC() int { return p.s.cluster.DC(p.Coordinator) }

// ScopedStore returns the process's store connection as a store of scope
// (lockstep.Scoped) reading at read and writing at write, counted for the
// process's data centre. Levels that cannot keep scope are refused with the
// Cassandra stores' error (cqlstore.ValidateScope), unless the knob
// AcceptAnyLevels is on. Call it before the process's first request; it
// applies to every request of the process.
func (p *Process) ScopedStore(scope lockstep.Scope, read, write model.Level) (lockstep.Store, error) {
	if read == model.Count || write == model.Count {
		return nil, fmt.Errorf("sim: ScopedStore needs explicit levels, not %v/%v", read, write)
	}
	if !p.s.knobs.AcceptAnyLevels {
		if err := cqlstore.ValidateScope(scope, cqlLevel(read), cqlLevel(write)); err != nil {
			return nil, err
		}
	}
	p.read, p.write, p.scope = read, write, scope
	return scopedStore{procStore{p}, scope}, nil
}

func cqlLevel(l model.Level) cqlstore.Level {
	switch l {
	case model.Quorum:
		return cqlstore.Quorum
	case model.LocalQuorum:
		return cqlstore.LocalQuorum
	case model.EachQuorum:
		return cqlstore.EachQuorum
	case model.All:
		return cqlstore.All
	}
	return cqlstore.Level(0xff) // unknown: refused
}

type scopedStore struct {
	procStore
	scope lockstep.Scope
}

func (s scopedStore) Scope() lockstep.Scope { return s.scope }

// PartitionDCs cuts every link between data centres a and b.
func (s *Sim) PartitionDCs(a, b int) {
	s.trace("partition dc %d from dc %d", a, b)
	s.cluster.PartitionDCs(a, b)
}

// HealDCs restores every link between data centres; it traces only if one
// was cut.
func (s *Sim) HealDCs() {
	if s.cluster.HealDCs() {
		s.trace("heal dcs")
	}
}

// acked reports whether m, written by p, has the acknowledgements p's write
// level needs, counted for the data centre of m's coordinator (a
// LOCAL_QUORUM write coordinated in another data centre is acknowledged by
// that data centre's quorum, as in Cassandra).
func (s *Sim) acked(p *Process, m *model.Mutation) bool {
	if p.write == model.Count {
		return m.Acks() >= s.cluster.Config().W
	}
	return s.cluster.Enough(p.write, 0, s.cluster.DC(m.Coord), m.Applied)
}

// levelSets returns the sets of replicas that coordinator coord reaches
// that satisfy level counted for coord's data centre, minimal ones only if
// minimal (reads ask just enough replicas), and, if !minimal, after them
// (largest first) the reachable sets that do not (a write applied by too
// few at once, waiting for deliveries). ok is false if no reachable set
// satisfies level.
func (s *Sim) levelSets(coord int, level model.Level, minimal bool) (sets [][]int, ok bool) {
	c := s.cluster
	n := c.Config().Replicas
	mark := func(set []int) []bool {
		b := make([]bool, n)
		for _, i := range set {
			b[i] = true
		}
		return b
	}
	reachable := func(set []int) bool {
		for _, i := range set {
			if !c.Reachable(coord, i) {
				return false
			}
		}
		return true
	}
	enough := func(set []int) bool { return c.Enough(level, 0, c.DC(coord), mark(set)) }
	var good, short [][]int
	for _, set := range subsets(n, func(int) bool { return true }, !minimal) {
		if !reachable(set) {
			continue
		}
		if !enough(set) {
			short = append(short, set)
			continue
		}
		if minimal && !isMinimal(set, enough) {
			continue
		}
		good = append(good, set)
	}
	if len(good) == 0 {
		return nil, false
	}
	if minimal {
		return good, true
	}
	return append(good, short...), true
}

// isMinimal reports whether no set of one replica fewer is enough.
func isMinimal(set []int, enough func([]int) bool) bool {
	for k := range set {
		smaller := append(append([]int{}, set[:k]...), set[k+1:]...)
		if enough(smaller) {
			return false
		}
	}
	return true
}

// DCName is the name of data centre d of the model ("dc1" for 0), as a
// DC-local scope names it (lockstep.LocalTo).
func DCName(d int) string { return fmt.Sprintf("dc%d", d+1) }

// Misroute sends p's requests from now on to replica coord to coordinate —
// typically a node of another data centre: a session whose load-balancing
// policy fails over to a remote data centre, or was never told the local
// one — until Reroute. The levels of those requests are counted for coord's
// data centre, as Cassandra counts them; a DC-local store refuses their
// answers (refusal).
func (s *Sim) Misroute(p *Process, coord int) {
	s.trace("misroute %s to replica %d", p.Name, coord)
	p.misroute.Store(int32(coord) + 1)
}

// Reroute sends p's requests to its own coordinator again; it traces only if
// p was misrouted.
func (s *Sim) Reroute(p *Process) {
	if p.misroute.Swap(0) != 0 {
		s.trace("reroute %s", p.Name)
	}
}

// Misrouted returns the replica coordinating p's requests under a misroute,
// ok false if p is not misrouted.
func (p *Process) Misrouted() (coord int, ok bool) {
	m := p.misroute.Load()
	return int(m) - 1, m != 0
}

// coord returns the replica that coordinates a request p sends now.
func (p *Process) coord() int {
	if c, ok := p.Misrouted(); ok {
		return c
	}
	return p.Coordinator
}

// refusal is what a DC-local store says of the answer to y: the Cassandra
// stores' rule (cqlstore.CheckCoordinator) refuses an answer coordinated in
// another data centre, wrapped as they wrap it (cqlstore.Errors: a write's
// outcome is then unknown, and both wrap lockstep.ErrRefused); nil for a
// global store, a local coordinator, or with the knob
// AcceptRemoteCoordinator on.
func (s *Sim) refusal(y *Yield) error {
	p := y.Proc
	if p.scope.IsGlobal() || s.knobs.AcceptRemoteCoordinator {
		return nil
	}
	err := cqlstore.CheckCoordinator(p.scope.DC(), fmt.Sprintf("replica %d", y.Coord), DCName(s.cluster.DC(y.Coord)))
	if err == nil {
		return nil
	}
	e := cqlstore.Errors{Name: "sim"}
	if y.Kind == Read {
		return e.Read(y.Table, err)
	}
	return e.Write(y.Kind.String(), y.Table, err)
}
