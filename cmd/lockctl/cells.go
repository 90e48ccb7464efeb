package main

import (
	"context"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/schema"
)

// The storage formats read here are the algorithms', owned by package
// internal/layout (its doc.go): the queue partition (table queue_lock, row =
// lock id: queue cells, owner cells, the floor cell) and the legacy rows
// (tables legacy_main and legacy_shadow, row = lock id: one cell per owner,
// column = owner id).

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
	owners     []queueCell
	queue      []queueCell     // in line order
	foreign    []lockstep.Cell // queue-partition cells no Locker writes (internal/layout)
	main       []lockstep.Cell // legacy main row
	shadow     []lockstep.Cell // legacy shadow row
	queueName  string
	mainName   string
	shadowName string
}

// readLock reads id's cells: the queue partition from its floor (or, with
// full, from its start, scanning every tombstone the lock ever left) and both
// legacy rows. ctx bounds the four reads; it writes nothing.
func readLock(ctx context.Context, s lockstep.Store, t schema.Tables, id string, full bool) (*lockCells, error) {
	lc := &lockCells{id: id, fullRead: full, queueName: t.QueueLock, mainName: t.LegacyMain, shadowName: t.LegacyShadow}
	fl, err := s.Read(ctx, t.QueueLock, id, layout.FloorSlice())
	if err != nil {
		return nil, fmt.Errorf("reading the floor of %q: %w", id, err)
	}
	if len(fl) == 1 {
		if e, err := layout.Parse(fl[0].Column, fl[0].Value); err != nil {
			lc.floorErr = err
		} else {
			lc.floor = e.Floor
		}
	}
	slice := layout.QueueSlice(lc.floor)
	if full || lc.floorErr != nil {
		slice = lockstep.Slice{}
	}
	cells, err := s.Read(ctx, t.QueueLock, id, slice)
	if err != nil {
		return nil, fmt.Errorf("reading %s of %q: %w", t.QueueLock, id, err)
	}
	for _, c := range cells {
		if c.Column == layout.FloorColumn {
			continue // read above, its trouble in floorErr
		}
		e, err := layout.Parse(c.Column, c.Value)
		switch {
		case err != nil:
			lc.foreign = append(lc.foreign, c)
		case e.Kind == layout.Owner:
			lc.owners = append(lc.owners, queueCell{Cell: c, owner: true, id: e.Owner, access: e.Access})
		default:
			lc.queue = append(lc.queue, queueCell{Cell: c, named: e.Time, id: e.Owner, access: e.Access})
		}
	}
	for i, o := range lc.owners {
		// A holder's queue cell goes with its first renewal (docs/algorithms.md,
		// section 4.13): then when it enqueued is no longer known.
		for _, q := range lc.queue {
			if q.id == o.id {
				lc.owners[i].named = q.named
			}
		}
	}
	if lc.main, err = s.Read(ctx, t.LegacyMain, id, layout.LegacyRow()); err != nil {
		return nil, fmt.Errorf("reading %s of %q: %w", t.LegacyMain, id, err)
	}
	if lc.shadow, err = s.Read(ctx, t.LegacyShadow, id, layout.LegacyRow()); err != nil {
		return nil, fmt.Errorf("reading %s of %q: %w", t.LegacyShadow, id, err)
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
