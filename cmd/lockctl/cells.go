package main

import (
	"context"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/inspect"
	"github.com/lockstep-go/lockstep/schema"
)

// The storage formats read here are the algorithms' (docs/algorithms.md,
// sections 3 and 4.1), parsed by package inspect: the queue partition (table
// queue_lock, row = lock id: queue cells, owner cells, the floor cell) and
// the legacy rows (tables legacy_main and legacy_shadow, row = lock id: one
// cell per owner, column = owner id).

// queueCell is a parsed owner or queue cell.
type queueCell struct {
	lockstep.Cell
	owner  bool            // an owner cell, else a queue cell
	named  int64           // µs: when the acquisition enqueued (the time in its queue cell's name); 0 if unknown
	id     string          // the owner id: in a queue cell's name, an owner cell's value
	access lockstep.Access // what the acquisition asks or holds (from the value)
}

// lockCells are the live cells of one lock id in the lock tables.
type lockCells struct {
	id         string
	floor      int64 // µs; 0 when the partition has no floor cell
	floorErr   error // the floor cell does not decode
	fullRead   bool  // the queue partition was read from its start, not the floor
	evidence   int64 // the evidence cell's fencing token; 0 when none
	owners     []queueCell
	queue      []queueCell     // in line order
	foreign    []lockstep.Cell // queue-partition cells no Locker writes (inspect.Lock.Foreign)
	main       []lockstep.Cell // legacy main row
	shadow     []lockstep.Cell // legacy shadow row
	queueName  string
	mainName   string
	shadowName string
}

// readLock reads id's cells with inspect.Read: the queue partition from its
// floor (or, with full, from its start, scanning every tombstone the lock
// ever left) and both legacy rows. ctx bounds the four reads; it writes
// nothing.
func readLock(ctx context.Context, s lockstep.Store, t schema.Tables, id string, full bool) (*lockCells, error) {
	r, err := inspect.Read(ctx, s, inspect.Tables{Queue: t.QueueLock, LegacyMain: t.LegacyMain, LegacyShadow: t.LegacyShadow}, id, full)
	if err != nil {
		return nil, err
	}
	lc := &lockCells{id: id, floor: r.Floor, floorErr: r.FloorErr, fullRead: full, evidence: r.Evidence, foreign: r.Foreign, main: r.Main, shadow: r.Shadow,
		queueName: t.QueueLock, mainName: t.LegacyMain, shadowName: t.LegacyShadow}
	for _, c := range r.Owners {
		lc.owners = append(lc.owners, queueCell{Cell: c.Cell, owner: true, named: c.Enqueued, id: c.ID, access: c.Access})
	}
	for _, c := range r.Queue {
		lc.queue = append(lc.queue, queueCell{Cell: c.Cell, named: c.Enqueued, id: c.ID, access: c.Access})
	}
	return lc, nil
}

// tableCell is a cell with the table it lives in.
type tableCell struct {
	table string
	lockstep.Cell
}

// deletable lists the cells release --force deletes: every owner,
// queue and legacy cell. The floor cell stays: it is no one's lock, and
// readers treat an older floor as merely conservative.
func (lc *lockCells) deletable() []tableCell {
	var out []tableCell
	for _, q := range lc.owners {
		out = append(out, tableCell{lc.queueName, q.Cell})
	}
	for _, q := range lc.queue {
		out = append(out, tableCell{lc.queueName, q.Cell})
	}
	for _, c := range lc.main {
		out = append(out, tableCell{lc.mainName, c})
	}
	for _, c := range lc.shadow {
		out = append(out, tableCell{lc.shadowName, c})
	}
	return out
}
