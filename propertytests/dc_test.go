package propertytests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The data-centre fleets (docs/multi-dc.md): queue-lock processes in two
// data centres of one cluster, replicas 0 and 1 in dc1 and replica 2 in dc2
// (the shape of a 3-node cluster split 2 + 1), with a DC partition and its
// heal, and a misroute (a process's requests coordinated by a replica of
// the other data centre, as by a session failed over to a remote one) and
// its end, among the random phase's faults. Properties as every fleet's, per
// scope: the harness keys each holding by its row (harness.row), so a
// global fleet allows one holder of the id cluster-wide and a DC-local
// fleet one per data centre.

// dcReplicas is each replica's data centre: 0 is dc1, 1 is dc2.
var dcReplicas = []int{0, 0, 1}

// dcCoordinators is the coordinator of each process of a DC fleet, by
// index: p0 and p2 in dc1, p1 and p3 in dc2.
var dcCoordinators = []int{0, 2, 1, 2}

// dcSpec is a DC fleet's scope and consistency levels.
type dcSpec struct {
	local       bool // DC-local locks; otherwise global
	read, write model.Level
	// coordinators, when set, replaces dcCoordinators: the coordinator of
	// each process, by index.
	coordinators []int
}

// dcName is the name of data centre d of the model.
func dcName(d int) string { return sim.DCName(d) }

// dcQueue is a queue-lock process on a store of the fleet's scope, at its
// levels: the sim refuses levels that cannot keep the scope (the defect
// accept-any-levels lets them through).
func dcQueue(spec dcSpec) kind {
	return kind{name: "new/dc", mode: lockstep.ModeNew, new: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
		var scope lockstep.Scope
		if spec.local {
			scope = lockstep.LocalTo(dcName(p.DC()))
		}
		st, err := p.ScopedStore(scope, spec.read, spec.write)
		if err != nil {
			return nil, nil, err
		}
		l, err := queuelock.New(st, &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Poll: poll, MaxClockSkew: maxClockSkew,
			Clock: k.clock(p.Clock()), ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), Fencing: fencing, TestingKnobs: k.queue})
		if err != nil {
			return nil, nil, err
		}
		return l, l.Close, nil
	}}
}

// The cheapest global pair (EACH_QUORUM writes, LOCAL_QUORUM reads) and the
// DC-local one (LOCAL_QUORUM both ways).
var (
	globalEachQuorum = dcSpec{read: model.LocalQuorum, write: model.EachQuorum}
	localQuorum      = dcSpec{local: true, read: model.LocalQuorum, write: model.LocalQuorum}
)

var dcFleets = []fleet{
	// A global lock, three processes in two data centres. A partition
	// blocks every EACH_QUORUM write until it heals: no holder on either
	// side can renew, none can claim.
	{name: "new/dc-global", kinds: []kind{dcQueue(globalEachQuorum), dcQueue(globalEachQuorum), dcQueue(globalEachQuorum)},
		starvationFree: true, dc: &globalEachQuorum, extraFault: dcFaults},
	// DC-local locks of one id, two processes in each data centre: one
	// holder per data centre, and a partition changes nothing. A
	// misrouted process's requests are refused (cqlstore.CheckCoordinator):
	// its LOCAL_QUORUM would be the other data centre's. Four processes
	// make a schedule cost about four of "new" (10 a second in CI's sweep,
	// 194 s): the sweep runs one in two.
	{name: "new/dc-local", kinds: []kind{dcQueue(localQuorum), dcQueue(localQuorum), dcQueue(localQuorum), dcQueue(localQuorum)},
		dc: &localQuorum, extraFault: dcFaults, sweepDivisor: 2},
}

// dcFaults is the DC fleets' extra fault: a DC partition or its heal
// (partitionDCs), or a misroute or its end (misroute).
func dcFaults(h *harness, ch sim.Chooser) bool {
	if ch.Choose("dc fault", 2) == 0 {
		return partitionDCs(h, ch)
	}
	return misroute(h, ch)
}

// misroute sends one process's requests to a replica of the other data
// centre to coordinate, as a session whose load-balancing policy failed
// over to a remote data centre does, or home again if they are misrouted
// already. A global lock's levels keep it safe wherever its requests are
// coordinated; a DC-local store refuses the answers (docs/multi-dc.md),
// unless the defect accept-remote-coordinator takes them. The quiet phase
// routes every process home.
func misroute(h *harness, ch sim.Chooser) bool {
	pr := h.pick(ch)
	if pr == nil {
		return false
	}
	if _, ok := pr.sp.Misrouted(); ok {
		h.s.Reroute(pr.sp)
		h.event("route %s home", pr.sp.Name)
		return true
	}
	h.misroute(pr, ch)
	return true
}

// misroute sends pr's requests to a replica of the other data centre, the
// one ch picks.
func (h *harness) misroute(pr *proc, ch sim.Chooser) {
	var remote []int
	for i, d := range dcReplicas {
		if d != pr.sp.DC() {
			remote = append(remote, i)
		}
	}
	c := remote[ch.Choose("coordinator", len(remote))]
	h.s.Misroute(pr.sp, c)
	h.event("misroute %s to replica %d in %s", pr.sp.Name, c, dcName(dcReplicas[c]))
}

// partitionDCs is a DC fleet's extra fault: cut every link between the
// two data centres, or heal them if cut.
func partitionDCs(h *harness, _ sim.Chooser) bool {
	if h.s.Cluster().Partitioned() {
		h.s.HealDCs()
		h.event("heal the partition between dc1 and dc2")
	} else {
		h.s.PartitionDCs(0, 1)
		h.event("partition dc1 from dc2")
	}
	return true
}

// addProcess adds process i of the fleet: in a DC fleet, coordinated in
// its data centre (dcCoordinators).
func (h *harness) addProcess(i int) *sim.Process {
	name := fmt.Sprintf("p%d", i)
	if p := h.f.kinds[i].process; p != "" {
		name = p
	}
	if h.f.dc == nil {
		return h.s.AddProcess(name)
	}
	coords := dcCoordinators
	if h.f.dc.coordinators != nil {
		coords = h.f.dc.coordinators
	}
	return h.s.AddProcessAt(name, coords[i%len(coords)])
}

// row returns the row pr's lock of id lives in: id, or in a DC-local fleet
// the row of id in pr's data centre (lockstep.Scope.Row). Mutual
// exclusion, fencing order and owner cells are judged per row.
func (h *harness) row(pr *proc, id string) string {
	if h.f.dc == nil || !h.f.dc.local {
		return id
	}
	return lockstep.LocalTo(dcName(pr.sp.DC())).Row(id)
}

// rows returns every row a lock of id may live in.
func (h *harness) rows(id string) []string {
	if h.f.dc == nil || !h.f.dc.local {
		return []string{id}
	}
	var out []string
	for d := range 2 {
		out = append(out, lockstep.LocalTo(dcName(d)).Row(id))
	}
	return out
}

func TestDCGlobalFleet_OneHolderAcrossDataCentresUnderPartitions(t *testing.T) {
	checkFleet(t, "new/dc-global")
}

func TestDCLocalFleet_OneHolderPerDataCentreUnderPartitions(t *testing.T) {
	checkFleet(t, "new/dc-local")
}
