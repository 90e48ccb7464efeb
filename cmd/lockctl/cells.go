package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/schema"
)

// The storage formats read here are the algorithms' (DESIGN §4; queuelock's
// columns.go, shadowlock's package documentation). Neither package exports a
// parser, so this file mirrors them; TestReadLock_ParsesWhatTheAlgorithmsWrite
// runs both algorithms and fails if the two drift apart.
//
// Queue partition (table queue_lock, row = lock id):
//
//	"<20-digit µs>/q/<owner>"     queue cell: <owner> waits in line
//	"~o/<process>/<incarnation>"  owner cell of one Locker; value: the owner
//	                              id that claims the lock
//	"~~floor"                     read floor: 8-byte big-endian µs
//
// Legacy rows (tables legacy_main and legacy_shadow, row = lock id): one
// cell per owner, column = owner id, empty value.
const (
	floorColumn = "~~floor"
	stampDigits = 20
	ownerPrefix = "~o/"
)

// queueCell is a parsed owner or queue cell.
type queueCell struct {
	lockstep.Cell
	owner bool   // an owner cell, else a queue cell
	named int64  // µs: when the acquisition enqueued (the time in its queue cell's name)
	id    string // the owner id: in a queue cell's name, an owner cell's value
}

// parseQueueColumn parses an owner or queue cell. An owner cell's name says
// no time; readLock takes it from the same owner's queue cell.
func parseQueueColumn(c lockstep.Cell) (queueCell, bool) {
	col := c.Column
	if strings.HasPrefix(col, ownerPrefix) {
		if len(c.Value) == 0 {
			return queueCell{}, false
		}
		return queueCell{Cell: c, owner: true, id: string(c.Value)}, true
	}
	if len(col) < stampDigits+4 || col[stampDigits] != '/' || col[stampDigits+1] != 'q' || col[stampDigits+2] != '/' {
		return queueCell{}, false
	}
	t, err := strconv.ParseInt(col[:stampDigits], 10, 64)
	if err != nil || t < 0 {
		return queueCell{}, false
	}
	return queueCell{Cell: c, named: t, id: col[stampDigits+3:]}, true
}

// stamp renders µs as the 20-digit zero-padded prefix of queue columns.
func stamp(t int64) string {
	s := strconv.FormatInt(t, 10)
	return strings.Repeat("0", max(0, stampDigits-len(s))) + s
}

// lockCells are the live cells of one lock id in the lock tables.
type lockCells struct {
	id         string
	floor      int64 // µs; 0 when the partition has no floor cell
	floorErr   error // the floor cell does not decode
	fullRead   bool  // the queue partition was read from its start, not the floor
	owners     []queueCell
	queue      []queueCell // in line order
	foreign    []lockstep.Cell
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
	fl, err := s.Read(ctx, t.QueueLock, id, lockstep.Slice{From: floorColumn, To: floorColumn + "\x00", Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("reading the floor of %q: %w", id, err)
	}
	if len(fl) == 1 {
		if len(fl[0].Value) == 8 {
			lc.floor = int64(binary.BigEndian.Uint64(fl[0].Value))
		} else {
			lc.floorErr = fmt.Errorf("floor cell holds %d bytes, want 8", len(fl[0].Value))
		}
	}
	from := stamp(lc.floor)
	if full || lc.floorErr != nil {
		from = ""
	}
	cells, err := s.Read(ctx, t.QueueLock, id, lockstep.Slice{From: from})
	if err != nil {
		return nil, fmt.Errorf("reading %s of %q: %w", t.QueueLock, id, err)
	}
	for _, c := range cells {
		if c.Column == floorColumn {
			continue
		}
		q, ok := parseQueueColumn(c)
		switch {
		case !ok:
			lc.foreign = append(lc.foreign, c)
		case q.owner:
			lc.owners = append(lc.owners, q)
		default:
			lc.queue = append(lc.queue, q)
		}
	}
	for i, o := range lc.owners {
		lc.owners[i].named = o.Timestamp // the claim's last write, unless its queue cell says more
		for _, q := range lc.queue {
			if q.id == o.id {
				lc.owners[i].named = q.named
			}
		}
	}
	if lc.main, err = s.Read(ctx, t.LegacyMain, id, lockstep.Slice{}); err != nil {
		return nil, fmt.Errorf("reading %s of %q: %w", t.LegacyMain, id, err)
	}
	if lc.shadow, err = s.Read(ctx, t.LegacyShadow, id, lockstep.Slice{}); err != nil {
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
