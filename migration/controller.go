package migration

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/migration/census"
)

// MoveError is a phase move the Controller refused. It wraps
// lockstep.ErrIncompatibleMode.
type MoveError struct {
	From, To lockstep.Mode
	Blockers []census.Entry
	Reason   string
}

func (e *MoveError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("migration: phase move %v -> %v refused: %s", e.From, e.To, e.Reason)
	}
	allowed := allowedIn(e.To)
	names := make([]string, 0, len(e.Blockers))
	for _, b := range e.Blockers {
		if b.Err != nil {
			names = append(names, b.Process+" (unreadable entry)")
			continue
		}
		var why []string
		for _, m := range b.InUse() {
			if allowed.has(m) {
				continue
			}
			if b.Configured == m {
				why = append(why, "configured "+m.String())
			}
			if n := b.Held[m]; n > 0 {
				why = append(why, fmt.Sprintf("holds %d %v lock(s)", n, m))
			}
			if n := b.Acquiring[m]; n > 0 {
				why = append(why, fmt.Sprintf("acquiring %d %v lock(s)", n, m))
			}
		}
		names = append(names, fmt.Sprintf("%s on %s (%s)", b.Process, b.Host, strings.Join(why, ", ")))
	}
	return fmt.Sprintf("migration: phase move %v -> %v refused: %d live process(es) use a mode phase %v forbids (allowed: %v): %s",
		e.From, e.To, len(e.Blockers), e.To, allowed, strings.Join(names, "; "))
}

// Unwrap returns lockstep.ErrIncompatibleMode.
func (e *MoveError) Unwrap() error { return lockstep.ErrIncompatibleMode }

// ControllerOptions configure a Controller; the tables must match the fleet's.
// Nil means defaults.
type ControllerOptions struct {
	PhaseTable, CensusTable string
	Clock                   lockstep.Clock
	// Drain is how long Set waits for blockers, re-reading the census every
	// Poll (default 1s), before writing anything.
	Drain time.Duration
	Poll  time.Duration
	// TestingKnobs plant defects for negative controls. Leave nil.
	TestingKnobs *TestingKnobs
}

// Controller reads and moves the fleet phase. Run one at a time per fleet.
// Safe for concurrent use.
type Controller struct {
	store                   lockstep.Store
	phaseTable, censusTable string
	clock                   lockstep.Clock
	ts                      *clock.Timestamps
	drain, poll             time.Duration
	knobs                   TestingKnobs // planted defects; zero in production

	mu sync.Mutex // serializes Set
}

// NewController returns a Controller on store, which must be global
// (lockstep.ScopeOf): the phase row and the census are fleet-wide.
func NewController(store lockstep.Store, opts *ControllerOptions) (*Controller, error) {
	o := deref.Of(opts)
	if err := checkFleetStore(store); err != nil {
		return nil, err
	}
	c := &Controller{store: store, phaseTable: cmp.Or(o.PhaseTable, DefaultPhaseTable), censusTable: cmp.Or(o.CensusTable, census.DefaultTable),
		clock: clockOr(o.Clock), drain: o.Drain, poll: cmp.Or(o.Poll, time.Second), knobs: deref.Of(o.TestingKnobs)}
	if err := lockstep.ValidateName("PhaseTable", c.phaseTable); err != nil {
		return nil, err
	}
	if err := lockstep.ValidateName("CensusTable", c.censusTable); err != nil {
		return nil, err
	}
	if c.drain < 0 || c.poll < 0 {
		return nil, &lockstep.ConfigError{Field: "Drain/Poll", Reason: fmt.Sprintf("must not be negative (%v, %v): use 0 for the defaults (no drain, poll 1s) or positive durations", c.drain, c.poll)}
	}
	c.ts = clock.NewTimestamps(c.clock)
	return c, nil
}

// Get returns the current phase.
func (c *Controller) Get(ctx context.Context) (Phase, error) {
	pc, err := readPhase(ctx, c.store, c.phaseTable)
	return pc.phase, err
}

// Set moves the phase one step towards target, or returns a *MoveError naming
// the processes that block it. ctx bounds the move; a failure after the intent
// reverts it or leaves it pending, which is safe.
func (c *Controller) Set(ctx context.Context, target lockstep.Mode) error {
	if !target.Valid() {
		return fmt.Errorf("migration: set phase: %w: %v", lockstep.ErrInvalidMode, target)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	pc, err := readPhase(ctx, c.store, c.phaseTable)
	if err != nil {
		return err
	}
	cur, last := pc.phase, pc.ts
	from := cur.Mode
	switch {
	case cur.Pending() && target == from: // abandon the pending move
		_, err := c.write(ctx, Phase{Mode: from}, last)
		return err
	case cur.Pending() && target != cur.Target:
		return &MoveError{From: from, To: target, Reason: fmt.Sprintf("the move in progress (%v) must be finished or reverted first", cur)}
	case !cur.Pending() && target == from:
		// Already there as far as this read shows. But an intent of an
		// earlier Set of this Controller whose outcome was unknown (a
		// timeout) may carry a later timestamp than the phase read here
		// and surface later, leaving the phase pending after this call
		// reported success. Rewriting the phase with a fresh timestamp,
		// above all this Controller wrote, makes the answer stick.
		_, err := c.write(ctx, Phase{Mode: target}, last)
		return err
	case !adjacent(from, target):
		return &MoveError{From: from, To: target, Reason: "phases move one step at a time (legacy <-> combined <-> new)"}
	}
	// A pending phase left behind by a Controller that died is finished
	// the same way: drained, intent rewritten, census checked.
	return c.move(ctx, from, target, last)
}

// Blocking returns the entries that forbid entering phase target.
func Blocking(entries []census.Entry, target lockstep.Mode) []census.Entry {
	allowed := allowedIn(target)
	var out []census.Entry
	for _, e := range entries {
		blocked := e.Err != nil
		for _, m := range e.InUse() {
			blocked = blocked || !allowed.has(m)
		}
		if blocked {
			out = append(out, e)
		}
	}
	return out
}

// write stores p with a timestamp above after (the last phase write seen), so
// that it wins even if another controller's clock ran ahead. It returns the
// timestamp used.
func (c *Controller) write(ctx context.Context, p Phase, after int64) (int64, error) {
	ts := max(c.ts.Next(), after+1)
	return ts, writePhase(ctx, c.store, c.phaseTable, p, ts)
}
