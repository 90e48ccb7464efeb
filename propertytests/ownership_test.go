package propertytests

import (
	"strings"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/migration/census"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Property 2, ownership, and the records the other properties take from
// the store events: who wrote which cell, and when its write was sent.

// ownerOf returns the acquisition a cell of table belongs to, as
// internal/layout names it: a queue cell's owner (in its name), a queue-lock
// owner cell's (its value, less the access a non-exclusive holder adds; a
// delete carries none, so ""), or a legacy cell's (its column). Any other
// cell, the floor cell among them, gives its column.
func ownerOf(table, col string, value []byte) string {
	if table == queuelock.DefaultTable {
		if _, _, err := layout.ParseOwnerColumn(col); err == nil {
			e, err := layout.Parse(col, value)
			if err != nil {
				return "" // a delete, or a value naming no owner
			}
			return e.Owner
		}
		if _, owner, err := layout.ParseQueueColumn(col); err == nil {
			return owner
		}
		return col
	}
	return layout.LegacyOwner(lockstep.Cell{Column: col})
}

// ownsColumn reports whether process proc may write or delete column col of
// table: the cells of its own acquisitions ("<proc>.<n>"; a migration.Locker's
// queue and legacy Lockers draw from one sequence), the
// owner cells of its own queue Lockers, its own census entry (column
// "<proc>"), its own wait records (deadlock detection), and — for the phase
// controller only — the phase cell.
func ownsColumn(proc, table, col string) bool {
	switch table {
	case clock.DefaultGlobalTable:
		return true // the global time service: every process raises the one cell (value = timestamp, so LWW keeps the maximum)
	case census.DefaultTable:
		return col == proc
	case deadlockTable:
		return strings.HasPrefix(col, proc+"/") // a wait record is named by its process first (internal/deadlock)
	case migration.DefaultPhaseTable:
		return proc == controllerName
	case queuelock.DefaultTable:
		if process, _, err := layout.ParseOwnerColumn(col); err == nil { // the Locker's process id
			return process == proc || strings.HasPrefix(process, proc+":")
		}
	}
	owner := ownerOf(table, col, nil)
	return strings.HasPrefix(owner, proc+".") || strings.HasPrefix(owner, proc+":")
}

// onStore checks property 2 — a request only writes or deletes cells of the
// requester's own acquisitions (or Lockers), and never writes one for an
// acquisition already released — and records acknowledged writes for lease
// validity.
func (h *harness) onStore(e sim.StoreEvent) {
	y := e.Yield
	h.noteGlobal(e)
	if y.Kind == sim.Read {
		if !e.Done {
			h.mu.Lock()
			h.noteClaimRead(y)
			h.mu.Unlock()
		}
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
	} else if len(y.Columns) > 0 && !e.Done {
		// A put that also deletes (lockstep.Mutator): its tombstones must
		// be the requester's own cells too.
		for _, c := range y.Columns {
			if !ownsColumn(y.Proc.Name, y.Table, c) {
				h.violate("ownership: %v deletes another process's cell %q", y, c)
			}
		}
	}
	if !e.Done {
		h.sent[y] = true
		h.event("%v", y)
		h.noteQueueDeletes(y)
		for _, c := range cells {
			owner := ownerOf(y.Table, c.Column, c.Value)
			switch {
			case y.Table == queuelock.DefaultTable && c.Column == layout.FloorColumn:
			case y.Kind == sim.Put && y.Table == queuelock.DefaultTable && c.Column == layout.EvidenceColumn && c.Value != nil:
				// The evidence cell (queuelock.Options.Evidence): every
				// recording process raises the one cell of an id, its value
				// its write timestamp, so LWW keeps the highest.
			case y.Kind == sim.Put && y.Table == queuelock.DefaultTable && c.Value != nil && layout.IsHandedFor(c.Column, owner):
				// A handed cell: the one cell a releaser writes for another
				// acquisition, the waiter it names (docs/algorithms.md,
				// section 4.12; property H2, handoff_test.go).
				h.checkHandoffSend(y, c, owner)
			case !ownsColumn(y.Proc.Name, y.Table, c.Column) && !h.mayWrite(y.Proc.Name, owner):
				h.violate("ownership: %v touches another process's cell %q", y, c.Column)
			case y.Kind == sim.Put && h.released[owner] && !h.adopting(y.Proc.Name, owner):
				h.violate("ownership: %v rewrites a cell of %s, released before", y, owner)
			}
		}
		return
	}
	delete(h.sent, y)
	if e.Err == nil {
		h.noteHandoffs(y)
	}
	if y.Kind == sim.Put {
		h.noteClaim(y)
		h.noteQueueCells(y, e.Err == nil)
		for _, c := range y.Cells {
			switch {
			case y.Table == queuelock.DefaultTable && layout.IsHandedFor(c.Column, ownerOf(y.Table, c.Column, c.Value)):
				// A releaser's handed cell is its waiter's owner cell only
				// if the waiter acquires by it: noteHandedHold decides at
				// the acquisition. One that arrives late, after its waiter
				// left the line and claimed again on its own, is not.
			case y.Table == queuelock.DefaultTable && isOwnerCell(y.Table, c.Column):
				h.queueOwnerCol[ownerOf(y.Table, c.Column, c.Value)] = c.Column
				h.queueOwnerColOf[y.Proc.Name+" "+ownerOf(y.Table, c.Column, c.Value)] = c.Column
			case y.Table == shadowlock.DefaultMainTable:
				h.legacyOwners[layout.LegacyOwner(c)] = true
			}
		}
	}
	if y.Kind == sim.Put && e.Err == nil {
		for _, c := range cells {
			if !isOwnerCell(y.Table, c.Column) {
				continue // a waiter's queue cell or a legacy shadow cell keeps no lock alive
			}
			if o := ownerOf(y.Table, c.Column, c.Value); y.SentElapsed > h.lastOK[o] {
				h.lastOK[o] = y.SentElapsed
			}
		}
	}
}
