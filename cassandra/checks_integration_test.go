//go:build integration

package cassandra_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// What the concurrency scenarios (scenarios_integration_test.go) and the
// cluster tests (cluster_integration_test.go) check: a guarded resource
// that records who is inside the critical section, the owner rows of a held
// lock, and the cells of a released one, read through an undisturbed store.

// guard is the resource the locks protect: a counter per lock id and who is
// inside its critical section. Its mutex only makes the bookkeeping itself
// race-free; exclusion must come from the locks.
type guard struct {
	mu     sync.Mutex
	inside lockstep.Lock // nil when nobody is
	value  int
}

// enter records h as inside and returns the counter. Finding another holder
// inside whose lease is not lost is a double grant. (One whose lease was lost
// is legitimately superseded: Lost() closes before its cells can expire.)
func (g *guard) enter(h lockstep.Lock) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if prev := g.inside; prev != nil && !isLost(prev) {
		return 0, fmt.Errorf("double grant: %s acquired %q while %s held it with a live lease", h.Owner(), h.ID(), prev.Owner())
	}
	g.inside = h
	return g.value, nil
}

// leave ends h's critical section, incrementing the counter from seen unless
// h's lease was lost. h having been superseded while its lease was not lost
// is a double grant.
func (g *guard) leave(h lockstep.Lock, seen int) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	lost := isLost(h)
	if g.inside != h {
		if lost {
			return false, nil
		}
		return false, fmt.Errorf("double grant: %q was taken from %s while its lease was live", h.ID(), h.Owner())
	}
	g.inside = nil
	if lost {
		return false, nil
	}
	g.value = seen + 1
	return true, nil
}

// abandon ends h's critical section without touching the counter.
func (g *guard) abandon(h lockstep.Lock) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inside == h {
		g.inside = nil
	}
}

func isLost(h lockstep.Lock) bool {
	select {
	case <-h.Lost():
		return true
	default:
		return false
	}
}

// owners are the owner ids an acquisition wrote: in the queue partition (new,
// combined) and in the legacy rows (legacy, combined); "" where it wrote
// nothing.
type owners struct{ queue, legacy string }

func ownersOf(h lockstep.Lock) owners {
	switch h.Mode() {
	case lockstep.ModeNew:
		return owners{queue: h.Owner()}
	case lockstep.ModeLegacy:
		return owners{legacy: h.Owner()}
	case lockstep.ModeCombined:
		return owners{queue: h.Owner(), legacy: h.(interface{ LegacyOwner() string }).LegacyOwner()}
	}
	panic(fmt.Sprintf("lock in mode %v", h.Mode()))
}

func (o owners) String() string {
	return strings.TrimSpace(fmt.Sprintf("%s %s", o.queue, o.legacy))
}

// lockRows are the owner ids named by the live cells of one lock id.
type lockRows struct {
	queueOwners, queueWaiters []string // owner and queue cells of the queue partition
	legacyMain, legacyShadow  []string
}

// readLockRows reads the tables mode uses for id.
func readLockRows(ctx context.Context, s lockstep.Store, id string, mode lockstep.Mode) (lockRows, error) {
	var r lockRows
	if mode == lockstep.ModeNew || mode == lockstep.ModeCombined {
		cells, err := s.Read(ctx, queuelock.DefaultTable, id, lockstep.Slice{})
		if err != nil {
			return r, fmt.Errorf("reading the queue partition of %q: %w", id, err)
		}
		for _, c := range cells {
			e, err := layout.Parse(c.Column, c.Value)
			switch {
			case err != nil:
				return r, fmt.Errorf("the queue partition of %q: %w", id, &lockstep.ForeignCellError{
					Table: queuelock.DefaultTable, Row: id, Column: c.Column, Reason: err.Error()})
			case e.Kind == layout.Owner:
				r.queueOwners = append(r.queueOwners, e.Owner)
			case e.Kind == layout.Queue:
				r.queueWaiters = append(r.queueWaiters, e.Owner)
			}
		}
	}
	if mode == lockstep.ModeLegacy || mode == lockstep.ModeCombined {
		for _, t := range []struct {
			table string
			into  *[]string
		}{{shadowlock.DefaultMainTable, &r.legacyMain}, {shadowlock.DefaultShadowTable, &r.legacyShadow}} {
			cells, err := s.Read(ctx, t.table, id, layout.LegacyRow())
			if err != nil {
				return r, fmt.Errorf("reading %s of %q: %w", t.table, id, err)
			}
			for _, c := range cells {
				*t.into = append(*t.into, layout.LegacyOwner(c))
			}
		}
	}
	return r, nil
}

// checkOwnerRows is check (a) for h, which holds id in mode. It returns how
// many reads saw another owner cell beside h's in the queue partition.
//
// The legacy main row must name h's legacy owner and nobody else: a legacy
// contender writes there only after reading the row empty (listing 4, step
// 10), and a cell a failed round leaves behind blocks everyone until it
// expires. The queue partition must hold h's owner cell. Another owner cell
// may appear there for a moment: a newcomer on queuelock's uncontended fast
// path writes its queue and owner cells in one request before reading
// anything, and a contender whose queue cell sorts first in its own view
// (named by a lagging clock before it saw h's) claims; both then read h's
// cell and withdraw their own (lemma 1). Such a cell must not be renewed,
// though: it has to be gone within ttl (the lock's TTL) of being seen, or
// someone else believes it holds. A lost lease ends the check without a
// verdict.
func checkOwnerRows(ctx context.Context, s lockstep.Store, id string, mode lockstep.Mode, h lockstep.Lock, ttl time.Duration) (int, error) {
	o := ownersOf(h)
	transient := 0
	for first := time.Now(); ; {
		r, err := readLockRows(ctx, s, id, mode)
		if err != nil || isLost(h) {
			return transient, err
		}
		if o.legacy != "" && (len(r.legacyMain) != 1 || r.legacyMain[0] != o.legacy) {
			return transient, fmt.Errorf("%s holds the legacy lock on %q but the main row names %q", o.legacy, id, r.legacyMain)
		}
		if o.queue == "" {
			return transient, nil
		}
		if !slices.Contains(r.queueOwners, o.queue) {
			return transient, fmt.Errorf("%s holds the queue lock on %q but the owner cells name %q", o.queue, id, r.queueOwners)
		}
		if len(r.queueOwners) == 1 {
			return transient, nil
		}
		transient++
		if time.Since(first) >= ttl {
			return transient, fmt.Errorf("%s holds the queue lock on %q but other owner cells stayed live for a TTL: %q", o.queue, id, r.queueOwners)
		}
		if err := (&clock.Local{}).Sleep(ctx, 100*time.Millisecond); err != nil {
			return transient, err
		}
	}
}

// mentions reports whether any live cell was written by o.
func (r lockRows) mentions(o owners) bool {
	has := func(list []string, owner string) bool {
		for _, x := range list {
			if owner != "" && x == owner {
				return true
			}
		}
		return false
	}
	return has(r.queueOwners, o.queue) || has(r.queueWaiters, o.queue) ||
		has(r.legacyMain, o.legacy) || has(r.legacyShadow, o.legacy)
}

// awaitGone polls until no live cell written by o remains for id, and fails
// if a read that started ttl or more after released still sees one (d).
func awaitGone(ctx context.Context, s lockstep.Store, id string, o owners, released time.Time, ttl time.Duration) error {
	mode := lockstep.ModeNew
	switch {
	case o.queue != "" && o.legacy != "":
		mode = lockstep.ModeCombined
	case o.legacy != "":
		mode = lockstep.ModeLegacy
	}
	for {
		readAt := time.Now()
		rows, err := readLockRows(ctx, s, id, mode)
		if err != nil {
			return err
		}
		if !rows.mentions(o) {
			return nil
		}
		if readAt.Sub(released) >= ttl {
			return fmt.Errorf("cells of released %s still live %v after Unlock began (TTL %v)",
				o, readAt.Sub(released).Round(time.Millisecond), ttl)
		}
		if err := (&clock.Local{}).Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}
