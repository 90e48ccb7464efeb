package queue

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/layout"
)

// Waiting reads s.ID's partition once and reports whether a live queue
// cell of an owner other than s's is there: an acquisition of another
// process (or another of this one's, in another access) waits for the id.
// A retained store hold, and one at its local-handoff bound, look with it
// (internal/cohort's Watcher). It writes nothing.
//
// The read starts at the floor this process knows to be published (the
// floor cell's value it wrote or read), not at its own floor, and it
// raises its own floor only to the floor cell it returns: a look sends no
// claim, so a floor it learned would never be published, and a waiter
// named below it would stay hidden from every later look without being
// told to take a new place (section 4.5, refinement 3). A waiter named
// below the published floor takes a new place above it, a poll later, and
// the next look sees it.
func (l *Locker) Waiting(ctx context.Context, s held.Spec) (bool, error) {
	n := 0
	row := l.row(s.ID)
	if _, err := l.floor(ctx, row, &n); err != nil { // refreshes a stale entry from the floor cell
		return false, err
	}
	cells, err := l.store.Read(ctx, l.cfg.table, row, layout.QueueSlice(l.publishedFloor(row)))
	if err != nil {
		return false, err
	}
	es, err := l.parse(row, cells)
	if err != nil {
		return false, err
	}
	waiting := false
	var published int64
	for _, e := range es {
		switch e.Kind {
		case layout.Floor:
			published = e.Floor
		case layout.Queue:
			l.hlc.Observe(e.Time)
			if e.Owner != s.Owner {
				waiting = true
			}
		}
	}
	l.hlc.Observe(published)
	l.learn(row, 0, published)
	return waiting, nil
}

// publishedFloor returns the highest floor cell value this process wrote
// or read for id (0: none known).
func (l *Locker) publishedFloor(id string) int64 {
	l.floors.mu.Lock()
	defer l.floors.mu.Unlock()
	return l.floors.m[id].stored
}
