package queue

import (
	"context"
	"log/slog"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// view is what one read of a lock id's partition saw above the floor.
type view struct {
	queue  []layout.Entry // queue cells in line order
	owners []layout.Entry // owner cells
	oldest int64          // enqueue time of the first queue cell, -1 if none
	floor  int64          // the published floor (the floor cell), 0 if none
	// evidence is the evidence cell's token (layout.EvidenceColumn), 0 if
	// none: the highest token a release recorded on this id.
	evidence int64
	// partial: the read skipped the intention range but for the reader's
	// own cell (readAs), so an intention holder may hold unseen.
	partial bool
}

// hides reports whether the published floor has passed the enqueue time t:
// some process's reads start above a cell named t, so it does not see it.
func (v view) hides(t int64) bool { return v.floor > t }

func (v view) queued(column string) bool {
	for _, e := range v.queue {
		if e.Column == column {
			return true
		}
	}
	return false
}

// Accesses (docs/algorithms.md, section 4.2): a request in access a may claim when
// it is compatible with every live request before it in line and every live
// owner cell but its own; a claim holds when, read after its write, its
// owner cell is there and every other owner cell is compatible with a. For
// Exclusive, compatible with nothing, these are the documents' "first in
// line" and "the only owner cell".

// clearAhead reports whether every queue cell in front of column is
// compatible with a: for Exclusive, that column is first in line. A column
// not in the view has everyone in front of it.
func (v view) clearAhead(column string, a lockstep.Access) bool {
	for _, e := range v.queue {
		if e.Column == column {
			return true
		}
		if !a.Compatible(e.Access) {
			return false
		}
	}
	return false
}

// holding reports whether an owner cell of the acquisition owner is in v.
func (v view) holding(owner string) bool {
	for _, e := range v.owners {
		if e.Owner == owner {
			return true
		}
	}
	return false
}

// mayHold is holding for an acquisition in access a: true also when v
// skipped the intention range (partial) and a is an intention access, whose
// owner cell may be there unseen.
func (v view) mayHold(owner string, a lockstep.Access) bool {
	return v.holding(owner) || v.partial && layout.Intention(a)
}

// blockedBy reports whether an owner cell other than the one in column col
// or owner's handed cell conflicts with a. A cell in col left by an
// earlier acquisition of ours (a delete that failed) is no obstacle: our
// claim rewrites it; nor is a handed cell naming owner, our claim by the
// releaser's hand (section 4.12).
func (v view) blockedBy(owner, col string, a lockstep.Access) bool {
	for _, e := range v.owners {
		if !mine(e, owner, col) && !a.Compatible(e.Access) {
			return true
		}
	}
	return false
}

// mine reports whether owner cell e is the claim of the acquisition owner
// whose own owner column is col: that column naming owner, or owner's
// handed cell, which a releaser wrote for it (docs/algorithms.md, section
// 4.12). For any other acquisition a handed cell is an owner cell like any
// other: a holder.
func mine(e layout.Entry, owner, col string) bool {
	return e.Owner == owner && (e.Column == col || layout.IsHandedFor(e.Column, owner))
}

// handedTo returns owner's handed cell in v, if any.
func (v view) handedTo(owner string) (layout.Entry, bool) {
	for _, e := range v.owners {
		if e.Owner == owner && layout.IsHandedFor(e.Column, owner) {
			return e, true
		}
	}
	return layout.Entry{}, false
}

// won reports lemma 1's success condition, for an acquisition whose owner
// id is owner, in column col, in access a: its owner cell — in col, or its
// handed cell (mine) — is there and every other owner cell is compatible
// with a (for Exclusive: it is the only owner cell).
func (v view) won(owner, col string, a lockstep.Access) bool {
	ours := false
	for _, e := range v.owners {
		switch {
		case mine(e, owner, col):
			ours = true
		case !a.Compatible(e.Access):
			return false
		}
	}
	return ours
}

// crowded reports whether the line holds, besides column, a queue cell that
// conflicts with a: someone who waits, or will wait, for an acquisition in
// a. The winner of a claim that saw one keeps the id off the fast path for
// a TTL (fastpath.go); readers among readers do not (for Exclusive, any
// other queue cell counts, as it always did).
func (v view) crowded(column string, a lockstep.Access) bool {
	for _, e := range v.queue {
		if e.Column != column && !a.Compatible(e.Access) {
			return true
		}
	}
	return false
}

// busyFor reports whether any live cell conflicts with a request in access
// a: TryLock then fails without writing anything.
func (v view) busyFor(a lockstep.Access) bool {
	for _, e := range v.owners {
		if !a.Compatible(e.Access) {
			return true
		}
	}
	for _, e := range v.queue {
		if !a.Compatible(e.Access) {
			return true
		}
	}
	return false
}

// read fetches every live queue cell of id at or above the floor and every
// owner cell, feeds the queue times to the hybrid logical clock so this
// process never names a cell in front of a waiter it has seen, and raises the
// floor (floor.go). A cell it cannot parse fails the read with a
// *lockstep.ForeignCellError, before anything is learned from it (parse).
func (l *Locker) read(ctx context.Context, id string, requests *int) (view, error) {
	return l.readAs(ctx, id, requests, "")
}

// readAs is read for the acquisition whose owner column is own. For an own
// column in the intention range (Options.IntentionRange, an intention
// access) it reads the partition up to the range and, beside that, its own
// cell alone: two requests sent together, both after whatever the caller
// wrote before, so each shows what read would of the cells it covers. The
// other cells of the range are intention holders, compatible with the
// reader's access, so no rule of view.go needs them (docs/algorithms.md,
// section 4.14); v.partial says they were skipped. Any other own column,
// or "", reads to the end of the partition, and so does every read of a
// Locker that records evidence (Options.Evidence): a read of its own cell
// alone can return the tombstone of its previous release of the id, and
// the read's repair would carry that tombstone to a replica without the
// evidence written beside it (docs/algorithms.md, section 5.3, Lemma 15's
// step (2)).
func (l *Locker) readAs(ctx context.Context, id string, requests *int, own string) (view, error) {
	f, err := l.floor(ctx, id, requests)
	if err != nil {
		return view{}, err
	}
	// Names below the floor are invisible; a process whose clock lags that
	// far must name its cells above it.
	l.hlc.Observe(f)
	start := l.cfg.Clock.Now()
	split := layout.InIntentionRange(own) && l.cfg.evidence == EvidenceOff
	slice := layout.QueueSlice(f)
	if split || l.cfg.knobs.SkipIntentionRange {
		slice = layout.IntentionlessSlice(f)
	}
	var mine chan ownRead
	if split {
		mine = make(chan ownRead, 1)
		*requests++
		lifecycle.Go(l.cfg.Clock, func() {
			cells, err := l.store.Read(ctx, l.cfg.table, id, layout.OwnSlice(own))
			mine <- ownRead{cells, err}
		})
	}
	*requests++
	cells, err := l.store.Read(ctx, l.cfg.table, id, slice)
	if mine != nil {
		r := <-mine
		if err == nil {
			err = r.err
		}
		cells = append(cells, r.cells...) // the range sorts last: column order holds
	}
	if err != nil {
		return view{}, err
	}
	es, err := l.parse(id, cells)
	if err != nil {
		return view{}, err
	}
	v := view{oldest: -1, partial: split}
	for _, e := range es {
		switch e.Kind {
		case layout.Floor:
			v.floor = e.Floor
		case layout.Evidence:
			v.evidence = e.Token
		case layout.Owner:
			v.owners = append(v.owners, e)
		case layout.Queue:
			if v.oldest < 0 || e.Time < v.oldest {
				v.oldest = e.Time
			}
			v.queue = append(v.queue, e)
			l.hlc.Observe(e.Time)
		}
	}
	learned := l.nextFloor(start, v.oldest)
	if l.cfg.knobs.NoFloorLag {
		learned = v.oldest
	}
	if l.cfg.knobs.IgnorePublishedFloor {
		v.floor = 0
	}
	l.hlc.Observe(v.floor)
	l.learn(id, learned, v.floor)
	return v, nil
}

// ownRead is the outcome of readAs's read of the reader's own cell.
type ownRead struct {
	cells []lockstep.Cell
	err   error
}

// parse parses the cells of one read of id's partition (internal/layout).
// The first cell that no Locker writes fails it with a
// *lockstep.ForeignCellError, wrapping lockstep.ErrForeignCell: another
// writer shares the table. Skipping such a cell instead could hide a holder
// from lemma 1's check (an owner cell naming no owner, say), so the caller
// of Lock or TryLock gets the error and the acquisition ends, deleting what
// it wrote; the foreign cell is left as it is. (With the planted
// SkipForeignCells defect it is logged and skipped, as it once was.)
func (l *Locker) parse(id string, cells []lockstep.Cell) ([]layout.Entry, error) {
	es := make([]layout.Entry, 0, len(cells))
	for _, c := range cells {
		e, err := layout.Parse(c.Column, c.Value)
		if err != nil {
			if l.cfg.knobs.SkipForeignCells {
				l.cfg.Logger.Error("queuelock: ignoring foreign cell", slog.String("id", id), slog.Any("err", err))
				continue
			}
			return nil, &lockstep.ForeignCellError{Table: l.cfg.table, Row: id, Column: c.Column, Reason: err.Error()}
		}
		e.Timestamp = c.Timestamp
		es = append(es, e)
	}
	return es, nil
}
