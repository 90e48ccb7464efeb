package propertytests

import (
	"encoding/binary"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
)

// Property 4a, reserved tokens: every fencing token a grant carries is at
// most the global time cell's value at the moment of the grant. A token
// comes from a draw (clock.Global.Reserve) that wrote its block's last
// value to the cell before it returned, and the cell never decreases (its
// value is its write timestamp), so a token above the cell was never
// reserved: a later draw, on any process, may return it again, and token
// order (property 4; docs/algorithms.md, section 4.15, Theorem 6a) then
// rests on how far apart the clocks are. Property 4 sees that only when a
// successor's draw does collide; this sees it at the grant.
//
// Every fleet's processes draw from one cell: the harness builds each
// process's clock.Global on its unscoped store, in the default table, so a
// DC-local fleet's Lockers, whose lock rows carry their data centre, share
// it too (written at their levels, so the replicas of the two data centres
// may differ for a while; the check takes the maximum over every replica,
// and an acknowledged draw is on at least one). The replicas are read
// directly, without a store request, so the check changes no schedule.

// The global time cell's row and column (clock/global.go: one cell).
const globalTimeRow, globalTimeColumn = "global_time", "global_time"

// globalTime returns the largest value of the global time cell over every
// replica, 0 when none holds it.
func (h *harness) globalTime() int64 {
	cl := h.s.Cluster()
	var top int64
	for i := range cl.Config().Replicas {
		for _, sc := range cl.Replica(i).Scan(clock.DefaultGlobalTable, globalTimeRow, lockstep.Slice{From: globalTimeColumn, To: globalTimeColumn + "\x00"}) {
			if len(sc.Value) == 8 {
				top = max(top, int64(binary.BigEndian.Uint64(sc.Value)))
			}
		}
	}
	return top
}

// checkReserved checks property 4a for token, which pr was just granted
// under owner for the lock id (row); the caller holds h.mu.
func (h *harness) checkReserved(pr *proc, owner, row string, token int64) {
	if cell := h.globalTime(); token > cell {
		h.violate("fencing: token not reserved: %s got %s's lock of %q with token %d, above the global time cell's %d (a later draw may return it again)",
			pr.sp.Name, owner, row, token, cell)
	}
}
