package propertytests

import (
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Property 2b, the lock is its owner cell: while a holder's Lost() is open,
// its owner cells — the queue lock's "~o/" column carrying its owner id, or
// its legacy main cell; both, for a combined lock; every member's, for a
// group — must be the winning, live version across the replicas. Lemma 1 is about that cell: if anything deleted or overwrote it
// (a goroutine of the same Locker releasing late, say), a contender's claim
// could read no owner and succeed beside the holder. Property 1 sees that
// only once a contender does succeed; this sees the cause at once. The
// replicas are read without read repair, so the check changes nothing.
func (h *harness) checkOwnerCells() error {
	for _, pr := range h.procs {
		for _, l := range h.heldAll(pr) {
			if pr.sp.Crashed() || !h.validLocked(pr, l) {
				continue
			}
			ms, _ := memberLocks(l)
			for _, m := range ms {
				for _, c := range h.ownerCellsOf(pr, m) {
					if err := h.ownerCellLive(c, h.row(pr, m.ID())); err != nil {
						return fmt.Errorf("ownership: %s holds %s with Lost() open, but %w", pr.sp.Name, l.Owner(), err)
					}
				}
			}
		}
	}
	return nil
}

// ownerCell is one owner cell of an acquisition: where it is, and whom it
// must name.
type ownerCell struct {
	table, col, owner string
}

// ownerCells returns the owner cells of l's acquisition (a flat lock, or
// one member of a group) that the store events showed: its queue owner
// column (modes new and combined), its legacy main cell (mode legacy), and
// a combined lock's legacy half's main cell, under the legacy half's own
// owner id.
func (h *harness) ownerCells(l lockstep.Lock) []ownerCell {
	var out []ownerCell
	switch l.Mode() {
	case lockstep.ModeNew, lockstep.ModeCombined:
		if col, ok := h.queueOwnerCol[l.Owner()]; ok {
			out = append(out, ownerCell{queuelock.DefaultTable, col, l.Owner()})
		}
	case lockstep.ModeLegacy:
		if h.legacyOwners[l.Owner()] {
			out = append(out, ownerCell{shadowlock.DefaultMainTable, layout.LegacyColumn(l.Owner()), l.Owner()})
		}
	}
	if l.Mode() == lockstep.ModeCombined {
		if lo := legacyOwner(l); lo != "" && h.legacyOwners[lo] {
			out = append(out, ownerCell{shadowlock.DefaultMainTable, layout.LegacyColumn(lo), lo})
		}
	}
	return out
}

// ownerCellsOf is ownerCells for pr's holding: in the transfer fleet, the
// owner cell in pr's own column (each holder of a shared owner has one).
func (h *harness) ownerCellsOf(pr *proc, l lockstep.Lock) []ownerCell {
	if h.tr == nil || l.Mode() != lockstep.ModeNew {
		return h.ownerCells(l)
	}
	if col, ok := h.queueOwnerColOf[pr.sp.Name+" "+l.Owner()]; ok {
		return []ownerCell{{queuelock.DefaultTable, col, l.Owner()}}
	}
	return nil
}

// legacyOwner returns the owner id of a combined lock's legacy half ("" for
// any other lock).
func legacyOwner(l lockstep.Lock) string {
	if g, ok := l.(interface{ LegacyOwner() string }); ok {
		return g.LegacyOwner()
	}
	return ""
}

// ownerCellLive reports an error unless owner cell c of lock id's row
// reconciles, over every replica, to a live cell naming its owner. A queue
// owner cell names it in its value (with the access held, which does not
// matter here); a legacy main cell in its column.
func (h *harness) ownerCellLive(c ownerCell, id string) error {
	win, found, nowSec := h.winning(c.table, id, c.col)
	switch {
	case !found:
		return fmt.Errorf("no replica holds its owner cell %s/%s", c.table, c.col)
	case !win.IsLive(nowSec):
		return fmt.Errorf("its owner cell %s/%s reconciles to a dead %v (timestamp %d)", c.table, c.col, win.Kind, win.Timestamp)
	case c.table == queuelock.DefaultTable && ownerOf(c.table, c.col, win.Value) != c.owner:
		return fmt.Errorf("its owner cell %s/%s names %q", c.table, c.col, win.Value)
	}
	return nil
}

// winning returns the version of cell col of table's row id that wins
// across every replica, reconciled as a read would but without read repair
// (so nothing changes), whether any replica holds it, and the latest
// replica clock in whole seconds, to judge its TTL by.
func (h *harness) winning(table, id, col string) (win model.StoredCell, found bool, nowSec int64) {
	cl := h.s.Cluster()
	for i := range cl.Config().Replicas {
		nowSec = max(nowSec, cl.ReplicaNow(i)/1_000_000)
		for _, sc := range cl.Replica(i).Scan(table, id, lockstep.Slice{From: col, To: col + "\x00"}) {
			if !found {
				win, found = sc, true
			} else {
				win = model.Reconcile(win, sc)
			}
		}
	}
	return win, found, nowSec
}
