package propertytests

import "github.com/lockstep-go/lockstep"

// The lease (harness.work), owner-cell (ownercell_test.go) and fencing
// (fencing_test.go) properties judge a holding by the locks it stands on:
// a flat lock's own, or every member of a lock group (the lock-manager
// fleets, groupfleet_test.go). A group's Owner and Mode show its first
// member only, and a defect that let a later member's lease lapse unwatched,
// its owner cell vanish, or its token come out of order, would hide behind
// a healthy first member; access exclusion (G1) sees it only once another
// holder does get in.

// memberLocks returns the locks l stands on: each member of a group
// (internal/manager's Lock), with the access it holds there, or l itself,
// exclusive.
func memberLocks(l lockstep.Lock) ([]lockstep.Lock, []lockstep.Access) {
	g, ok := l.(interface{ MemberLocks() []lockstep.Lock })
	if !ok {
		return []lockstep.Lock{l}, []lockstep.Access{lockstep.Exclusive}
	}
	ms := g.MemberLocks()
	acc := make([]lockstep.Access, len(ms))
	reqs := l.(lockstep.Grouped).Members()
	for i := range ms {
		acc[i] = reqs[i].Access
	}
	return ms, acc
}

// heldBy returns the lock pr holds, if any: a flat lock, or a group of a
// lock-manager fleet's user; the caller holds h.mu.
func (h *harness) heldBy(pr *proc) lockstep.Lock {
	if pr.holding != nil || h.grp == nil {
		return pr.holding
	}
	return h.grp.locks[pr]
}
