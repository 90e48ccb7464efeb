package queuelock

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
)

// floors caches, per lock id, the read floor: a time below which no live cell
// of that id exists. Reads start at the floor, so their cost does not grow
// with the lock's history of tombstones (DESIGN §4.2, refinement 3).
//
// Why the floor is sound. Only a holder advances it, to
// min(oldest live cell it read, now − lag) with lag = 2×MaxClockSkew + TTL,
// and its read started at the previous floor, so it saw every live cell. A
// waiter keeps its place by renewing, so its cell stays live and the floor
// stays below it; a long-held owner cell likewise. A cell named later is named
// by a clock at most 2×MaxClockSkew behind the holder's; it could fall below
// the floor only if its write were delayed by more than a TTL after its name
// was taken, and then its writer simply does not see it, which it treats as a
// lost place (a waiter) or a failed claim (an owner). One case needs more than
// lemma 1: a claim write delivered so late that its queue cell expired and a
// later holder raised the floor past it. Its writer may still read itself
// alone from a stale cached floor while readers from the new floor miss it.
// A claim therefore counts only if it completed within TTL/2 of being sent
// (claim in acquire.go), which no such late write can.
//
// The floor cell's value equals its write timestamp, like the global time
// cell, so Cassandra's last-write-wins keeps the maximum: concurrent advances
// cannot move it back. A stale cached floor is merely conservative.
type floors struct {
	mu sync.Mutex
	m  map[string]floorEntry
}

type floorEntry struct {
	value  int64 // µs
	readAt int64 // µs, local clock, when value was last confirmed from the store
}

// get returns the cached floor of id, refreshing it from the store when it is
// older than refresh. It counts the requests it makes in *requests.
func (l *Locker) floor(ctx context.Context, id string, requests *int) (int64, error) {
	now := l.cfg.Clock.Now()
	l.floors.mu.Lock()
	e, ok := l.floors.m[id]
	l.floors.mu.Unlock()
	if ok && now-e.readAt < l.floorRefresh().Microseconds() {
		return e.value, nil
	}
	*requests++
	cells, err := l.store.Read(ctx, l.cfg.table, id, lockstep.Slice{From: floorColumn, To: floorColumn + "\x00", Limit: 1})
	if err != nil {
		return 0, err
	}
	var v int64
	if len(cells) == 1 {
		if v, err = decodeFloor(cells[0].Value); err != nil {
			l.cfg.Logger.Error("queuelock: ignoring malformed floor cell", slog.String("id", id), slog.Any("err", err))
			v = 0
		}
	}
	return l.cacheFloor(id, v, now), nil
}

// floorStale reports whether the next read of id would re-read the floor.
func (l *Locker) floorStale(id string) bool {
	now := l.cfg.Clock.Now()
	l.floors.mu.Lock()
	defer l.floors.mu.Unlock()
	e, ok := l.floors.m[id]
	return !ok || now-e.readAt >= l.floorRefresh().Microseconds()
}

func (l *Locker) cacheFloor(id string, v, now int64) int64 {
	l.floors.mu.Lock()
	defer l.floors.mu.Unlock()
	if l.floors.m == nil {
		l.floors.m = make(map[string]floorEntry)
	}
	if e := l.floors.m[id]; e.value > v {
		v = e.value
	}
	l.floors.m[id] = floorEntry{value: v, readAt: now}
	return v
}

// floorRefresh is how long a cached floor is trusted before it is re-read.
func (l *Locker) floorRefresh() time.Duration { return l.cfg.Lease.TTL }

// floorLag is how far behind the present the floor must stay.
func (l *Locker) floorLag() time.Duration { return 2*l.cfg.skew + l.cfg.Lease.TTL }

// advanceFloor is called by a new holder with the view its successful claim
// read. It raises the floor when the raise is worth a write (at least a TTL),
// best effort: failing to raise it costs only read efficiency.
func (l *Locker) advanceFloor(ctx context.Context, id string, v view, requests *int) {
	now := l.cfg.Clock.Now()
	candidate := now - l.floorLag().Microseconds()
	if v.oldest >= 0 && v.oldest < candidate {
		candidate = v.oldest
	}
	l.floors.mu.Lock()
	cur := l.floors.m[id].value
	l.floors.mu.Unlock()
	if candidate-cur < l.cfg.Lease.TTL.Microseconds() {
		return
	}
	*requests++
	cell := lockstep.Cell{Column: floorColumn, Value: encodeFloor(candidate), Timestamp: candidate}
	if err := l.store.Put(ctx, l.cfg.table, id, cell); err != nil {
		l.cfg.Logger.Warn("queuelock: could not advance read floor", slog.String("id", id), slog.Any("err", err))
		return
	}
	l.cacheFloor(id, candidate, now)
}
