package queuelock

import (
	"context"
	"log/slog"

	"github.com/lockstep-go/lockstep"
)

// view is what one read of a lock id's partition saw above the floor.
type view struct {
	queue  []entry // queue cells in line order
	owners []entry // owner cells
	oldest int64   // smallest time among them, -1 if none
}

// head returns the first queue entry.
func (v view) head() (entry, bool) {
	if len(v.queue) == 0 {
		return entry{}, false
	}
	return v.queue[0], true
}

func (v view) queued(column string) bool {
	for _, e := range v.queue {
		if e.column == column {
			return true
		}
	}
	return false
}

// ownedByOthers reports whether an owner cell other than owner's is live.
func (v view) ownedByOthers(owner string) bool {
	for _, e := range v.owners {
		if e.owner != owner {
			return true
		}
	}
	return false
}

// ownedOnlyBy reports lemma 1's success condition: owner's cell is the only
// owner cell.
func (v view) ownedOnlyBy(owner string) bool {
	return len(v.owners) == 1 && v.owners[0].owner == owner
}

// read fetches every live queue and owner cell of id at or above the floor,
// and feeds the queue times to the hybrid logical clock so this process never
// names a cell in front of a waiter it has seen.
func (l *Locker) read(ctx context.Context, id string, requests *int) (view, error) {
	f, err := l.floor(ctx, id, requests)
	if err != nil {
		return view{}, err
	}
	// Names below the floor are invisible; a process whose clock lags that
	// far must name its cells above it.
	l.hlc.Observe(f)
	*requests++
	cells, err := l.store.Read(ctx, l.cfg.table, id, lockstep.Slice{From: stamp(f)})
	if err != nil {
		return view{}, err
	}
	v := view{oldest: -1}
	for _, c := range cells {
		e, err := parseColumn(c.Column)
		if err != nil {
			l.cfg.Logger.Error("queuelock: ignoring foreign cell", slog.String("id", id), slog.Any("err", err))
			continue
		}
		if v.oldest < 0 || e.time < v.oldest {
			v.oldest = e.time
		}
		if e.kind == kindOwner {
			v.owners = append(v.owners, e)
		} else {
			v.queue = append(v.queue, e)
			l.hlc.Observe(e.time)
		}
	}
	return v, nil
}
