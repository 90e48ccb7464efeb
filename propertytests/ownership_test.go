package propertytests

import (
	"strings"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Property 2, ownership, and the records the other properties take from
// the store events: who wrote which cell, and when its write was sent.

// ownerOf returns the acquisition a lock cell belongs to: the column after
// its last '/' (queue cells), the value (the queue lock's owner cells, one
// column per Locker: "~o/<process>/<incarnation>"), or the whole column
// (legacy). A delete carries no value: its owner cells give "".
func ownerOf(col string, value []byte) string {
	if strings.HasPrefix(col, queueOwnerPrefix) {
		return string(value)
	}
	if i := strings.LastIndexByte(col, '/'); i >= 0 {
		return col[i+1:]
	}
	return col
}

const (
	floorColumn      = "~~floor" // queuelock's shared, monotone read floor
	queueOwnerPrefix = "~o/"     // queuelock's owner cells
)

// ownsColumn reports whether process proc may write or delete column col of
// table: the cells of its own acquisitions ("<proc>.<n>"; a migration.Locker's
// queue and legacy Lockers draw from one sequence), the
// owner cells of its own queue Lockers, its own census entry (column
// "<proc>"), and — for the phase controller only — the phase cell.
func ownsColumn(proc, table, col string) bool {
	switch table {
	case clock.DefaultGlobalTable:
		return true // the global time service: every process raises the one cell (value = timestamp, so LWW keeps the maximum)
	case migration.DefaultCensusTable:
		return col == proc
	case migration.DefaultPhaseTable:
		return proc == controllerName
	}
	owner := ownerOf(col, nil)
	if rest, ok := strings.CutPrefix(col, queueOwnerPrefix); ok {
		owner, _, _ = strings.Cut(rest, "/") // the Locker's process id
		return owner == proc || strings.HasPrefix(owner, proc+":")
	}
	return strings.HasPrefix(owner, proc+".") || strings.HasPrefix(owner, proc+":")
}

// onStore checks property 2 — a request only writes or deletes cells of the
// requester's own acquisitions (or Lockers), and never writes one for an
// acquisition already released — and records acknowledged writes for lease
// validity.
func (h *harness) onStore(e sim.StoreEvent) {
	y := e.Yield
	if y.Kind == sim.Read {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	cells := y.Cells
	if y.Kind != sim.Put {
		cells = make([]lockstep.Cell, len(y.Columns))
		for i, c := range y.Columns {
			cells[i].Column = c
		}
	}
	if !e.Done {
		h.event("%v", y)
		for _, c := range cells {
			owner := ownerOf(c.Column, c.Value)
			switch {
			case c.Column == floorColumn:
			case !ownsColumn(y.Proc.Name, y.Table, c.Column):
				h.violate("ownership: %v touches another process's cell %q", y, c.Column)
			case y.Kind == sim.Put && h.released[owner]:
				h.violate("ownership: %v rewrites a cell of %s, released before", y, owner)
			}
		}
		return
	}
	if y.Kind == sim.Put {
		h.noteClaim(y)
		for _, c := range y.Cells {
			switch {
			case y.Table == queuelock.DefaultTable && strings.HasPrefix(c.Column, queueOwnerPrefix):
				h.queueOwnerCol[string(c.Value)] = c.Column
			case y.Table == shadowlock.DefaultMainTable:
				h.legacyOwners[c.Column] = true
			}
		}
	}
	if y.Kind == sim.Put && e.Err == nil {
		for _, c := range cells {
			if !isOwnerCell(y.Table, c.Column) {
				continue // a waiter's queue cell or a legacy shadow cell keeps no lock alive
			}
			if o := ownerOf(c.Column, c.Value); y.SentElapsed > h.lastOK[o] {
				h.lastOK[o] = y.SentElapsed
			}
		}
	}
}
