package inspect

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
)

// Tables names the lock tables Read reads. Each empty field means its default,
// the names package schema creates.
type Tables struct {
	// Queue is the queue lock's table. Default "queue_lock".
	Queue string
	// LegacyMain and LegacyShadow are the legacy lock's tables. Default
	// "legacy_main" and "legacy_shadow".
	LegacyMain, LegacyShadow string
}

func (t Tables) resolve() (Tables, error) {
	t.Queue = cmp.Or(t.Queue, "queue_lock")
	t.LegacyMain = cmp.Or(t.LegacyMain, "legacy_main")
	t.LegacyShadow = cmp.Or(t.LegacyShadow, "legacy_shadow")
	for _, f := range []struct{ field, name string }{{"Queue", t.Queue}, {"LegacyMain", t.LegacyMain}, {"LegacyShadow", t.LegacyShadow}} {
		if err := lockstep.ValidateName("Tables."+f.field, f.name); err != nil {
			return t, err
		}
	}
	return t, nil
}

// Cell is an owner or queue cell of the queue lock, parsed.
type Cell struct {
	lockstep.Cell
	// Owner is true for an owner cell (a claim on the lock), false for a
	// queue cell (a place in line).
	Owner bool
	// ID is the acquisition's owner id: a queue cell's name, an owner
	// cell's value.
	ID string
	// Process is the process id of the Locker that wrote an owner cell;
	// "" for a queue cell.
	Process string
	// Access is what the acquisition asks for (queue cell) or holds (owner
	// cell).
	Access lockstep.Access
	// Enqueued is when the acquisition joined the line, in µs since the
	// epoch (the time in its queue cell's name); 0 when unknown: a holder
	// whose queue cell went with its first renewal.
	Enqueued int64
}

// Lock is what Read found for one id.
type Lock struct {
	ID     string
	Tables Tables
	// Floor is the queue partition's floor, in µs; 0 when it has none.
	// FloorErr is set when the floor cell does not decode; the whole
	// partition was read then.
	Floor    int64
	FloorErr error
	// FullRead is true when the queue partition was read from its start.
	FullRead bool
	// Evidence is the highest fencing token a release recorded in the
	// partition (queuelock.Options.Evidence); 0 when none is recorded.
	Evidence int64
	// Owners are the owner cells; Queue the queue cells in line order.
	Owners, Queue []Cell
	// Foreign are cells of the queue partition no Locker writes: Lock and
	// TryLock of the id fail with ErrForeignCell while one is there.
	Foreign []lockstep.Cell
	// Main and Shadow are the legacy rows' cells (column = owner id).
	Main, Shadow []lockstep.Cell
}

// Read reads id's cells from store: the queue partition from its floor (or,
// with full, from its start, scanning every tombstone the lock ever left) and
// both legacy rows. ctx bounds the four reads; Read writes nothing. A read
// that fails is returned wrapped, naming the table.
func Read(ctx context.Context, store lockstep.Store, tables Tables, id string, full bool) (*Lock, error) {
	t, err := tables.resolve()
	if err != nil {
		return nil, err
	}
	if err := lockstep.ValidateID(id); err != nil {
		return nil, err
	}
	lc := &Lock{ID: id, Tables: t, FullRead: full}
	fl, err := store.Read(ctx, t.Queue, id, layout.FloorSlice())
	if err != nil {
		return nil, fmt.Errorf("reading the floor of %q: %w", id, err)
	}
	if len(fl) == 1 {
		if e, err := layout.Parse(fl[0].Column, fl[0].Value); err != nil {
			lc.FloorErr = err
		} else {
			lc.Floor = e.Floor
		}
	}
	slice := layout.QueueSlice(lc.Floor)
	if full || lc.FloorErr != nil {
		slice, lc.FullRead = lockstep.Slice{}, true
	}
	cells, err := store.Read(ctx, t.Queue, id, slice)
	if err != nil {
		return nil, fmt.Errorf("reading %s of %q: %w", t.Queue, id, err)
	}
	lc.parseQueue(cells)
	if lc.Main, err = store.Read(ctx, t.LegacyMain, id, layout.LegacyRow()); err != nil {
		return nil, fmt.Errorf("reading %s of %q: %w", t.LegacyMain, id, err)
	}
	if lc.Shadow, err = store.Read(ctx, t.LegacyShadow, id, layout.LegacyRow()); err != nil {
		return nil, fmt.Errorf("reading %s of %q: %w", t.LegacyShadow, id, err)
	}
	return lc, nil
}

// parseQueue sorts the queue partition's cells into owners, queue (in the
// store's column order, which is line order) and foreign cells.
func (lc *Lock) parseQueue(cells []lockstep.Cell) {
	for _, c := range cells {
		if c.Column == layout.FloorColumn {
			continue // read first, its trouble in FloorErr
		}
		e, err := layout.Parse(c.Column, c.Value)
		switch {
		case err != nil:
			lc.Foreign = append(lc.Foreign, c)
		case e.Kind == layout.Evidence:
			lc.Evidence = e.Token
		case e.Kind == layout.Owner:
			lc.Owners = append(lc.Owners, Cell{Cell: c, Owner: true, ID: e.Owner, Process: e.Process, Access: e.Access})
		default:
			lc.Queue = append(lc.Queue, Cell{Cell: c, Enqueued: e.Time, ID: e.Owner, Access: e.Access})
		}
	}
	for i, o := range lc.Owners {
		// A holder's queue cell goes with its first renewal
		// (docs/algorithms.md, section 4.13); until then it says when the
		// holder enqueued.
		for _, q := range lc.Queue {
			if q.ID == o.ID {
				lc.Owners[i].Enqueued = q.Enqueued
			}
		}
	}
}

// Waiting returns the queue cells of acquisitions that hold no owner cell:
// the waiters, in line order.
func (lc *Lock) Waiting() []Cell {
	owners := make(map[string]bool, len(lc.Owners))
	for _, o := range lc.Owners {
		owners[o.ID] = true
	}
	var out []Cell
	for _, q := range lc.Queue {
		if !owners[q.ID] {
			out = append(out, q)
		}
	}
	return out
}

// Compatible reports whether the owner cells' accesses are pairwise
// compatible: no owner, one, or several sharing the lock. Two owners in
// conflicting accesses are claimers that have not yet seen each other.
func (lc *Lock) Compatible() bool {
	for i, a := range lc.Owners {
		for _, b := range lc.Owners[i+1:] {
			if !a.Access.Compatible(b.Access) {
				return false
			}
		}
	}
	return true
}

// LegacyHolder returns the legacy lock's holder: the owner of the main row's
// one cell (listing 4, step 1). ok is false when the row has no cell, or
// several (then nobody holds it and contenders wait until they expire).
func (lc *Lock) LegacyHolder() (owner string, ok bool) {
	if len(lc.Main) != 1 {
		return "", false
	}
	return layout.LegacyOwner(lc.Main[0]), true
}

// Waited returns how long a queue cell's acquisition has been in line at now;
// 0 when its enqueue time is unknown.
func (c Cell) Waited(now time.Time) time.Duration {
	if c.Enqueued == 0 {
		return 0
	}
	return now.Sub(time.UnixMicro(c.Enqueued))
}
