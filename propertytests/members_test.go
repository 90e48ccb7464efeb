package propertytests

import (
	"math"
	"math/rand/v2"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

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

// heldAll returns every lock pr holds: heldBy's, or a deadlock-fleet
// unit's one or two (deadlockfleet_test.go); the caller holds h.mu.
func (h *harness) heldAll(pr *proc) []lockstep.Lock {
	if h.dl != nil {
		var out []lockstep.Lock
		for _, hl := range h.dl.held[pr] {
			out = append(out, hl.l)
		}
		return out
	}
	if l := h.heldBy(pr); l != nil {
		return []lockstep.Lock{l}
	}
	return nil
}

// heldBy returns the lock pr holds, if any: a flat lock, or a group of a
// lock-manager fleet's user; the caller holds h.mu.
func (h *harness) heldBy(pr *proc) lockstep.Lock {
	if pr.holding != nil || h.grp == nil {
		return pr.holding
	}
	return h.grp.locks[pr]
}

// TestMembers_OwnerCellCheckJudgesEveryMember is the per-member judging's
// own control: drive the fleet new/manager until a process holds a group of
// several members, then tombstone its last member's owner cell on every
// replica, as a defect that deleted it would. The owner-cell property must
// report that member — although the group's first member, all its Owner
// and Mode show, is intact and its Lost() still open.
func TestMembers_OwnerCellCheckJudgesEveryMember(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		caught, tried := false, false
		synctest.Test(t, func(t *testing.T) {
			h, err := newHarness(fleetNamed("new/manager"), variant{}, false)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = h.close() }()
			r := rand.New(rand.NewPCG(seed, 7))
			ch := randChooser{r}
			for range 400 {
				if !h.act(ch, actStep) { // no faults, time moves only when nothing can run: holdings come sooner
					h.act(ch, actTick)
				}
				if err := h.checkSafety(); err != nil {
					t.Log(err)
					return
				}
				for _, pr := range h.procs {
					l := h.heldBy(pr)
					if l == nil || pr.sp.Crashed() || !h.validLocked(pr, l) {
						continue
					}
					ms, _ := memberLocks(l)
					if len(ms) < 2 || len(h.ownerCells(ms[len(ms)-1])) == 0 {
						continue
					}
					tried = true
					last := ms[len(ms)-1]
					c := h.ownerCells(last)[0]
					cl := h.s.Cluster()
					dead := cl.PrepareDelete(0, math.MaxInt64/2, []string{c.col})
					all := make([]int, cl.Config().Replicas)
					for i := range all {
						all[i] = i
					}
					cl.Write(c.table, last.ID(), dead, all)
					require.NoError(t, h.ownerCellLive(h.ownerCells(ms[0])[0], ms[0].ID()), "the first member's cell is untouched")
					err := h.checkOwnerCells()
					require.Error(t, err, "the last member's owner cell is gone, yet the owner-cell property is silent")
					require.Contains(t, err.Error(), c.col)
					caught = true
					return
				}
			}
		})
		if tried {
			require.True(t, caught)
			t.Logf("seed %d: a group of several members held; the last member's deleted owner cell was reported", seed)
			return
		}
	}
	t.Fatal("no seed of 200 reached a group of several members held")
}
