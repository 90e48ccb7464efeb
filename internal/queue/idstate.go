package queue

import (
	"context"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// What a Locker remembers per lock id — the read floors (floor.go) and the
// contention hints (fastpath.go) — expires, so that a service locking ever
// new ids ("invoice/<n>") does not grow without bound. Every entry carries an
// expiry in elapsed time (Clock.Elapsed); an expired entry is dropped
//
//   - by an amortized sweep when its map has doubled since the last sweep
//     (at least minSweepLen entries), so a burst of ids costs O(1) per id;
//   - by a janitor goroutine that sweeps every TTL while anything is
//     remembered, so an idle Locker returns to nothing within two TTLs of
//     its last use. It is started by the first entry, ends when the maps are
//     empty, and Close stops it and waits for it. It sleeps on the Locker's
//     clock.
//
// A floor entry expires a TTL after its last use, but is kept while the
// id's in-process turn is held or awaited (internal/lifecycle, Turns), so a claim always
// publishes the floor its read started at. A hint expires at its own "until"
// (a TTL after the contention was seen). docs/algorithms.md, section 4.11, says
// why dropping either is safe.

// minSweepLen is the size below which inserting into a per-id map never
// sweeps it.
const minSweepLen = 64

// growth tracks one per-id map's size for amortized sweeping and shrinking.
type growth struct {
	swept int // entries left by the last sweep
	peak  int // most entries since the map was last rebuilt
}

// inserted records that an insert made the map n long and reports whether
// to sweep it now.
func (g *growth) inserted(n int) bool {
	g.peak = max(g.peak, n)
	return n >= minSweepLen && n >= 2*g.swept
}

// shrink returns m after a sweep: nil when empty, a fresh copy when it holds
// a quarter of its peak or less (a Go map never gives back its buckets), m
// itself otherwise. Copying is paid for by the deletions since the peak.
func shrink[V any](m map[string]V, g *growth) map[string]V {
	g.swept = len(m)
	switch {
	case len(m) == 0:
		g.peak = 0
		return nil
	case len(m) > g.peak/4:
		return m
	}
	c := make(map[string]V, len(m))
	for k, v := range m {
		c[k] = v
	}
	g.peak = len(c)
	return c
}

// sweep drops every expired floor and hint entry.
func (l *Locker) sweep() {
	if l.cfg.knobs.KeepIDState {
		return
	}
	now := l.cfg.Clock.Elapsed()
	l.floors.mu.Lock()
	l.sweepFloorsLocked(now)
	l.floors.mu.Unlock()
	l.hints.mu.Lock()
	l.sweepHintsLocked(now)
	l.hints.mu.Unlock()
}

// sweepFloorsLocked drops the floor entries expired at now (elapsed µs)
// whose id is neither held nor awaited in this Locker. Lock order:
// floors.mu, then the turns' mutex.
func (l *Locker) sweepFloorsLocked(now int64) {
	for id, e := range l.floors.m {
		if now >= e.expires && !l.turns.Busy(id) {
			delete(l.floors.m, id)
		}
	}
	l.floors.m = shrink(l.floors.m, &l.floors.growth)
}

// sweepHintsLocked drops the hints that ran out at now (elapsed µs).
func (l *Locker) sweepHintsLocked(now int64) {
	for id, until := range l.hints.m {
		if now >= until {
			delete(l.hints.m, id)
		}
	}
	l.hints.m = shrink(l.hints.m, &l.hints.growth)
}

// idStateLen returns how many ids the Locker remembers floors and hints of.
func (l *Locker) idStateLen() (floors, hints int) {
	l.floors.mu.Lock()
	floors = len(l.floors.m)
	l.floors.mu.Unlock()
	l.hints.mu.Lock()
	hints = len(l.hints.m)
	l.hints.mu.Unlock()
	return floors, hints
}

// janitor sweeps the per-id maps of an idle Locker. At most one run is in
// flight; it exists while the maps are not empty (or until its clock's Sleep
// fails), and the next new entry starts another.
type janitor struct {
	mu      sync.Mutex
	running bool
	closed  bool
	ctx     context.Context // ended by Close
	cancel  context.CancelFunc
	done    chan struct{} // closed when the current run ends
	wg      sync.WaitGroup
}

// remembered starts the janitor, unless one runs: a new entry was just put
// in a per-id map. Call it without holding floors.mu or hints.mu.
func (l *Locker) remembered() {
	if l.cfg.knobs.KeepIDState {
		return
	}
	j := &l.janitor
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.running || j.closed {
		return
	}
	if j.ctx == nil {
		j.ctx, j.cancel = context.WithCancel(context.Background())
	}
	j.running, j.done = true, make(chan struct{})
	j.wg.Add(1)
	ctx, done := j.ctx, j.done
	lifecycle.Go(l.cfg.Clock, func() { l.janitorRun(ctx, done) })
}

// janitorRun sweeps every TTL until the maps are empty, ctx ends, or the
// clock cannot sleep. The emptiness check and the end of the run are one
// step under janitor.mu, and remembered inserts before it takes that mutex,
// so an entry is never left behind without a janitor.
func (l *Locker) janitorRun(ctx context.Context, done chan struct{}) {
	defer l.janitor.wg.Done()
	for {
		err := l.cfg.Clock.Sleep(ctx, l.janitorEvery())
		if err == nil {
			l.sweep()
		}
		l.janitor.mu.Lock()
		if f, h := l.idStateLen(); err != nil || f+h == 0 {
			l.janitor.running = false
			close(done)
			l.janitor.mu.Unlock()
			return
		}
		l.janitor.mu.Unlock()
	}
}

// janitorEvery is the janitor's period.
func (l *Locker) janitorEvery() time.Duration { return l.cfg.Lease.TTL }

// stopJanitor ends the janitor for good and waits for it.
func (l *Locker) stopJanitor() {
	j := &l.janitor
	j.mu.Lock()
	j.closed = true
	if j.cancel != nil {
		j.cancel()
	}
	j.mu.Unlock()
	j.wg.Wait()
}
