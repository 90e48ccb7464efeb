package queue

import (
	"context"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
)

// floors caches, per lock id, the read floor: reads of the queue start at it,
// so their cost does not grow with the lock's history of tombstones (docs/algorithms.md,
// section 4.5, refinement 3).
//
// A read that started at clock time t raises the floor to
//
//	min(oldest live queue cell it saw, t − 2×MaxClockSkew)
//
// so a hot id's reads step over the tombstones of the acquisitions of the
// last 2×MaxClockSkew, not over its history. The floor guards only the queue,
// and the queue only fairness:
//
//   - Mutual exclusion does not read below any floor. Owner cells sort after
//     every queue cell (internal/layout), so each read fetches all of them, and
//     lemma 1 holds whatever the floor is.
//   - A waiter renews its queue cell, so it stays live, and a floor learned
//     from a read that saw it stays at or below it (refinement 1's pitfall:
//     "now − TTL" is not a floor; the oldest live cell is).
//   - A cell that read did not see was named at some time u (u and t on
//     this process's clock) by a clock at most MaxClockSkew behind this
//     one, so its name is at least u − MaxClockSkew; it is hidden below the
//     floor only if u < t − MaxClockSkew, that is, if its write was in flight for longer
//     than MaxClockSkew when the read began. Without the lag, a process
//     whose clock leads and who re-locks at once keeps its floor just above
//     every name a lagging waiter takes (the arrival-storm model check found
//     this: one waiter bypassed 7 times, bound 6).
//   - For writes in flight longer than that (or clocks further apart), the
//     hiding is made to show: every claim writes its process's floor to the
//     floor cell, every read returns the floor cell (it sorts last, so the
//     slice from the floor ends with it), and a waiter whose name the
//     published floor has passed takes a new place, a poll later
//     (acquire.go), named at or above that floor. (The sweep found a waiter bypassed 5
//     times, bound 4, before this.)
//
// The floor cell also lets a process that has not read the id lately start
// near the present: a cached floor older than a TTL is refreshed from it
// before the read. Its value equals its write timestamp, like the global time
// cell, so last-write-wins keeps the maximum. A floor from it is one some
// process learned by reading, so it is as good as one's own. It carries a TTL
// (floorCellTTL) that every claim renews, so an id no one claims any more
// leaves no live cell; docs/algorithms.md (sections 4.5 and 4.11) says why the argument
// above survives the expiry, and why a floor entry may be dropped.
type floors struct {
	mu     sync.Mutex
	m      map[string]floorEntry
	growth growth // for the amortized sweep (idstate.go)
}

type floorEntry struct {
	value  int64 // µs, wall time: the floor reads start at
	stored int64 // µs, wall time: the highest value seen in or written to the floor cell
	readAt int64 // µs, elapsed time: when the floor cell was last read
	// expires is when (µs, elapsed time) the entry may be dropped, unless
	// its id is held or awaited in this Locker: a TTL after its last use.
	expires int64
	// evidenceRead is set once a claim read of the id that drew beside
	// it (or took a value ahead) returned; foreignUntil is when (µs,
	// elapsed time) the last such read that showed another process's
	// evidence stops counting: a TTL after it (evidence.go).
	evidenceRead bool
	foreignUntil int64
}

// floor returns the cached floor of id, refreshing it from the floor cell
// when it was last read more than a TTL ago. It counts the requests it makes
// in *requests.
func (l *Locker) floor(ctx context.Context, id string, requests *int) (int64, error) {
	now := l.cfg.Clock.Elapsed()
	l.floors.mu.Lock()
	e, ok := l.floors.m[id]
	fresh := ok && now-e.readAt < l.floorRefresh().Microseconds()
	if fresh {
		e.expires = now + l.floorKeep()
		l.floors.m[id] = e
	}
	l.floors.mu.Unlock()
	if fresh {
		return e.value, nil
	}
	*requests++
	cells, err := l.store.Read(ctx, l.cfg.table, id, layout.FloorSlice())
	if err != nil {
		return 0, err
	}
	es, err := l.parse(id, cells)
	if err != nil {
		return 0, err
	}
	var v int64
	for _, e := range es {
		v = max(v, e.Floor)
	}
	return l.floorRead(id, v, now), nil
}

// floorStale reports whether the next read of id would re-read the floor.
func (l *Locker) floorStale(id string) bool {
	now := l.cfg.Clock.Elapsed()
	l.floors.mu.Lock()
	defer l.floors.mu.Unlock()
	e, ok := l.floors.m[id]
	return !ok || now-e.readAt >= l.floorRefresh().Microseconds()
}

// floorRead records that the floor cell of id held v at now (elapsed µs).
func (l *Locker) floorRead(id string, v, now int64) int64 {
	l.floors.mu.Lock()
	if l.floors.m == nil {
		l.floors.m = make(map[string]floorEntry)
	}
	e, existed := l.floors.m[id]
	e.value, e.stored, e.readAt = max(e.value, v), max(e.stored, v), now
	e.expires = now + l.floorKeep()
	l.floors.m[id] = e
	if !existed && l.floors.growth.inserted(len(l.floors.m)) && !l.cfg.knobs.KeepIDState {
		l.sweepFloorsLocked(now)
	}
	l.floors.mu.Unlock()
	if !existed {
		l.remembered()
	}
	return e.value
}

// nextFloor is the floor a read that started at clock time start and saw
// oldest as its first queue cell (-1: none) allows: the older of oldest and
// start − 2×MaxClockSkew.
func (l *Locker) nextFloor(start, oldest int64) int64 {
	f := start - 2*l.cfg.skew.Microseconds()
	if oldest >= 0 && oldest < f {
		return oldest
	}
	return max(f, 0)
}

// learn raises the floor of id to learned (nextFloor) and to published, the
// floor cell the read returned (0: none).
func (l *Locker) learn(id string, learned, published int64) {
	l.floors.mu.Lock()
	defer l.floors.mu.Unlock()
	e, ok := l.floors.m[id]
	if !ok {
		return
	}
	e.value = max(e.value, learned, published)
	e.stored = max(e.stored, published)
	e.expires = l.cfg.Clock.Elapsed() + l.floorKeep()
	l.floors.m[id] = e
}

// floorCell returns the floor cell to write along with a claim: the highest
// floor this process knows of id — its own or one it read in the cell — with
// the floor cell's TTL, so every claim renews the cell (docs/algorithms.md,
// section 4.11). Rewriting the cell's own value carries its own timestamp;
// on equal timestamps the later expiry wins, so the rewrite renews it.
func (l *Locker) floorCell(id string) (lockstep.Cell, bool) {
	l.floors.mu.Lock()
	defer l.floors.mu.Unlock()
	e, ok := l.floors.m[id]
	if l.cfg.knobs.KeepIDState {
		// The planted defect: only a raised floor is rewritten, and the state is kept for ever.
		if !ok || e.value <= e.stored {
			return lockstep.Cell{}, false
		}
		return layout.FloorCell(e.value, 0), true
	}
	v := max(e.value, e.stored)
	if !ok || v <= 0 {
		return lockstep.Cell{}, false
	}
	return layout.FloorCell(v, l.floorCellTTL()), true
}

// floorStored records that a write of the floor cell of id with v succeeded.
func (l *Locker) floorStored(id string, v int64) {
	l.floors.mu.Lock()
	defer l.floors.mu.Unlock()
	if e, ok := l.floors.m[id]; ok && v > e.stored {
		e.stored = v
		l.floors.m[id] = e
	}
}

// floorRefresh is how long a cached floor goes without a look at the floor
// cell.
func (l *Locker) floorRefresh() time.Duration { return l.cfg.Lease.TTL }

// floorKeep is how long (µs, elapsed time) a floor entry stays after its
// last use while its id is neither held nor awaited: a TTL, after which its
// next read would re-read the floor cell anyway (floorRefresh).
func (l *Locker) floorKeep() int64 {
	if l.cfg.knobs.KeepIDState {
		return 1 << 62 // never
	}
	return l.cfg.Lease.TTL.Microseconds()
}

// floorCellTTL is the TTL of the published floor cell: 2×TTL + Poll, rounded
// up to whole seconds. A published value must stay readable for longer than
// a waiter's poll plus its read (docs/algorithms.md, section 4.5, says why); Cassandra keeps a cell of
// TTL t for at least t − 1 s less the replica skew, and TTL is well above
// both, so this leaves every waiter at least a TTL beyond its poll to read it.
func (l *Locker) floorCellTTL() time.Duration {
	d := 2*l.cfg.Lease.TTL + l.cfg.poll
	return (d + time.Second - 1).Truncate(time.Second)
}

// putClaim writes cells of a claim to id's partition in one request, with the
// floor cell when floorCell offers it.
func (l *Locker) putClaim(ctx context.Context, id string, cells ...lockstep.Cell) error {
	fc, ok := l.floorCell(id)
	if ok {
		cells = append(cells, fc)
	}
	if err := l.store.Put(ctx, l.cfg.table, id, cells...); err != nil {
		return err
	}
	if ok {
		l.floorStored(id, fc.Timestamp)
	}
	return nil
}
