package migration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
)

// MoveError is a phase move the Controller refused. It wraps
// lockstep.ErrIncompatibleMode and names the processes that blocked it.
type MoveError struct {
	From, To lockstep.Mode
	// Blockers are the live census entries that use a mode the target
	// phase forbids (or that could not be decoded).
	Blockers []Entry
	// Reason is set when the move was refused for its shape rather than for
	// blockers.
	Reason string
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

// ControllerOptions configure a Controller. Nil means defaults.
type ControllerOptions struct {
	// PhaseTable and CensusTable name the tables; they must match the
	// fleet's Options. Defaults DefaultPhaseTable and DefaultCensusTable.
	PhaseTable, CensusTable string
	// Clock is the controller's clock. Default a clock.Local.
	Clock lockstep.Clock
	// Drain is how long Set keeps the intent and waits for blockers to
	// disappear (processes switching their flag, releasing locks) before it
	// reverts and refuses. Default 0: the census is checked once.
	Drain time.Duration
	// Poll is how often the census is re-read while draining. Default 1s.
	Poll time.Duration
}

// Controller reads and moves the fleet phase. Run one at a time per fleet:
// two controllers moving the phase concurrently can each pass their check
// and commit conflicting phases. Safe for concurrent use (Set calls of one
// Controller are serialized).
type Controller struct {
	store                   lockstep.Store
	phaseTable, censusTable string
	clock                   lockstep.Clock
	ts                      *clock.Timestamps
	drain, poll             time.Duration

	mu sync.Mutex // serializes Set
}

// NewController returns a Controller on store. Invalid options return an
// error wrapping lockstep.ErrInvalidConfig.
func NewController(store lockstep.Store, opts *ControllerOptions) (*Controller, error) {
	var o ControllerOptions
	if opts != nil {
		o = *opts
	}
	if store == nil {
		return nil, &lockstep.ConfigError{Field: "Store", Reason: "nil store"}
	}
	c := &Controller{store: store, phaseTable: o.PhaseTable, censusTable: o.CensusTable, clock: clockOr(o.Clock), drain: o.Drain, poll: o.Poll}
	if c.phaseTable == "" {
		c.phaseTable = DefaultPhaseTable
	}
	if c.censusTable == "" {
		c.censusTable = DefaultCensusTable
	}
	if err := lockstep.ValidateName("PhaseTable", c.phaseTable); err != nil {
		return nil, err
	}
	if err := lockstep.ValidateName("CensusTable", c.censusTable); err != nil {
		return nil, err
	}
	if c.poll == 0 {
		c.poll = time.Second
	}
	if c.drain < 0 || c.poll < 0 {
		return nil, &lockstep.ConfigError{Field: "Drain/Poll", Reason: fmt.Sprintf("must not be negative (%v, %v)", c.drain, c.poll)}
	}
	c.ts = clock.NewTimestamps(c.clock)
	return c, nil
}

// Get returns the current phase (Legacy if none was ever set). ctx bounds the
// read.
func (c *Controller) Get(ctx context.Context) (Phase, error) {
	pc, err := readPhase(ctx, c.store, c.phaseTable)
	return pc.phase, err
}

// Set moves the phase one step towards target. It writes the intent
// "pending:<from>-><to>" first, then reads the census: if no live process
// uses a mode the target forbids, it commits the target; otherwise it keeps
// the intent for up to Drain waiting for them, then reverts to the old phase
// and returns a *MoveError naming them. If the phase is already target, Set
// rewrites it, so that no earlier write of this Controller whose outcome was
// unknown can override it later. A move that skips combined, or another move
// pending towards a different target, is refused the same way without
// writing anything. A target that is not a valid mode returns an error
// wrapping lockstep.ErrInvalidMode.
//
// ctx bounds the whole move; when it ends (or a store request fails) Set
// reverts the intent with a context.WithoutCancel(ctx) and returns the error.
// If even the revert or the commit fails, the phase is left pending, which
// is safe: a pending phase allows only the modes both ends allow.
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
	if last, err = c.write(ctx, Phase{Mode: from, Target: target}, last); err != nil {
		return err
	}
	blockers, err := c.awaitClear(ctx, target)
	if err == nil && len(blockers) == 0 {
		_, err = c.write(ctx, Phase{Mode: target}, last)
		return err
	}
	if _, rerr := c.write(context.WithoutCancel(ctx), Phase{Mode: from}, last); rerr != nil {
		err = errors.Join(err, rerr)
	}
	if err != nil {
		return err
	}
	return &MoveError{From: from, To: target, Blockers: blockers}
}

// awaitClear reads the census until no live entry uses a mode target
// forbids, or Drain has passed, and returns the last blockers. ctx bounds the
// reads and the waits.
func (c *Controller) awaitClear(ctx context.Context, target lockstep.Mode) ([]Entry, error) {
	deadline := c.clock.Elapsed() + c.drain.Microseconds()
	for {
		entries, err := ReadCensus(ctx, c.store, &CensusOptions{Table: c.censusTable})
		if err != nil {
			return nil, err
		}
		blockers := Blocking(entries, target)
		if len(blockers) == 0 || c.clock.Elapsed() >= deadline {
			return blockers, nil
		}
		if err := c.clock.Sleep(ctx, c.poll); err != nil {
			return blockers, fmt.Errorf("migration: phase move to %v: %w", target, err)
		}
	}
}

// Blocking returns the entries that forbid entering phase target: those that
// use a mode target does not allow, and those that could not be decoded.
func Blocking(entries []Entry, target lockstep.Mode) []Entry {
	allowed := allowedIn(target)
	var out []Entry
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
