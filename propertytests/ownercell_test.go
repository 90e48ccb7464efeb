package propertytests

import (
	"bytes"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Property 2b, the lock is its owner cell: while a holder's Lost() is open,
// its owner cell — the queue lock's "~o/" column carrying its owner id, or
// its legacy main cell — must be the winning, live version across the
// replicas. Lemma 1 is about that cell: if anything deleted or overwrote it
// (a goroutine of the same Locker releasing late, say), a contender's claim
// could read no owner and succeed beside the holder. Property 1 sees that
// only once a contender does succeed; this sees the cause at once. The
// replicas are read without read repair, so the check changes nothing.
func (h *harness) checkOwnerCells() error {
	for _, pr := range h.procs {
		l := pr.holding
		if l == nil || pr.sp.Crashed() || !h.validLocked(pr, l) {
			continue
		}
		for table, col := range h.ownerColumns(l) {
			if err := h.ownerCellLive(table, col, l); err != nil {
				return fmt.Errorf("ownership: %s holds %s with Lost() open, but %w", pr.sp.Name, l.Owner(), err)
			}
		}
	}
	return nil
}

// ownerColumns returns the owner cells of l's acquisition that the store
// events showed: its queue owner column (modes new and combined) or its
// legacy main cell (mode legacy). A combined lock's legacy half has an owner
// id of its own, which the lock does not expose, so only its queue half is
// checked here (property 1 still covers the legacy half).
func (h *harness) ownerColumns(l lockstep.Lock) map[string]string {
	out := map[string]string{}
	switch l.Mode() {
	case lockstep.ModeNew, lockstep.ModeCombined:
		if col, ok := h.queueOwnerCol[l.Owner()]; ok {
			out[queuelock.DefaultTable] = col
		}
	case lockstep.ModeLegacy:
		if h.legacyOwners[l.Owner()] {
			out[shadowlock.DefaultMainTable] = layout.LegacyColumn(l.Owner())
		}
	}
	return out
}

// ownerCellLive reports an error unless column col of the lock's row in
// table reconciles, over every replica, to a live cell naming l's owner.
func (h *harness) ownerCellLive(table, col string, l lockstep.Lock) error {
	c := h.s.Cluster()
	var win model.StoredCell
	found := false
	nowSec := int64(0)
	for i := range c.Config().Replicas {
		nowSec = max(nowSec, c.ReplicaNow(i)/1_000_000)
		for _, sc := range c.Replica(i).Scan(table, l.ID(), lockstep.Slice{From: col, To: col + "\x00"}) {
			if !found {
				win, found = sc, true
			} else {
				win = model.Reconcile(win, sc)
			}
		}
	}
	want := layout.OwnerCell(col, l.Owner(), lockstep.Exclusive, 0, 0).Value
	if table == shadowlock.DefaultMainTable {
		want = layout.LegacyCell(l.Owner(), 0, 0).Value // empty: the column names the owner
	}
	switch {
	case !found:
		return fmt.Errorf("no replica holds its owner cell %s/%s", table, col)
	case !win.IsLive(nowSec):
		return fmt.Errorf("its owner cell %s/%s reconciles to a dead %v (timestamp %d)", table, col, win.Kind, win.Timestamp)
	case !bytes.Equal(win.Value, want):
		return fmt.Errorf("its owner cell %s/%s names %q", table, col, win.Value)
	}
	return nil
}
