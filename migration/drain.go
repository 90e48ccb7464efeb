package migration

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"

	"github.com/lockstep-go/lockstep/migration/census"
)

// maxIntents bounds the intents one Set writes. Each intent the census check
// after it turns down was overtaken by a process that began using a mode the
// target forbids after the drain last read the census; while an intent
// stands, such a process is refused its locks, so Set reverts at once and
// drains again rather than hold it. A fleet that keeps re-entering a
// forbidden mode (a flapping flag) is refused after this many attempts
// instead of being probed for the whole Drain.
const maxIntents = 3

// move drains the census, then writes the intent of from -> target, checks
// the census again and commits or reverts (see Set and the package
// documentation: only the census read after the intent carries the safety
// argument; the drain's reads only choose the moment). last is the
// timestamp of the phase write read last.
func (c *Controller) move(ctx context.Context, from, target lockstep.Mode, last int64) error {
	deadline := c.clock.Elapsed() + c.drain.Microseconds()
	var ann announcement
	defer func() { ann.withdraw(context.WithoutCancel(ctx), c) }()
	for attempt := 1; ; attempt++ {
		blockers, err := c.drainCensus(ctx, from, target, deadline, &ann)
		if err != nil || len(blockers) > 0 {
			if err != nil {
				return err
			}
			return &MoveError{From: from, To: target, Blockers: blockers}
		}
		if last, err = c.write(ctx, Phase{Mode: from, Target: target}, last); err != nil {
			return err
		}
		blockers, err = c.recheck(ctx, target)
		if err == nil && len(blockers) == 0 {
			_, err = c.write(ctx, Phase{Mode: target}, last)
			return err
		}
		reverted, rerr := c.write(context.WithoutCancel(ctx), Phase{Mode: from}, last)
		if err != nil || rerr != nil {
			return errors.Join(err, rerr)
		}
		last = reverted
		if attempt == maxIntents || c.clock.Elapsed() >= deadline {
			return &MoveError{From: from, To: target, Blockers: blockers}
		}
		if err := c.clock.Sleep(ctx, c.poll); err != nil {
			return fmt.Errorf("migration: phase move to %v: %w", target, err)
		}
	}
}

// drainCensus reads the census, writing nothing to the phase, until no live
// entry uses a mode target forbids, or the deadline (elapsed µs) has passed,
// and returns the last blockers. While blockers remain and time is left it
// announces the move, once, in ann. ctx bounds the reads and the waits.
func (c *Controller) drainCensus(ctx context.Context, from, target lockstep.Mode, deadline int64, ann *announcement) ([]census.Entry, error) {
	for {
		entries, err := census.Read(ctx, c.store, c.censusTable)
		if err != nil {
			return nil, err
		}
		blockers := Blocking(entries, target)
		if len(blockers) == 0 || c.clock.Elapsed() >= deadline {
			return blockers, nil
		}
		if err := ann.publish(ctx, c, Phase{Mode: from, Target: target}); err != nil {
			return blockers, err
		}
		if err := c.clock.Sleep(ctx, c.poll); err != nil {
			return blockers, fmt.Errorf("migration: phase move to %v: %w", target, err)
		}
	}
}

// recheck is the census read after the intent: the lemma-1 check. Its read
// starts after the intent's write completed, so it sees every process whose
// phase read missed the intent (docs/algorithms.md, Lemma 8). It returns the
// entries that forbid committing target.
func (c *Controller) recheck(ctx context.Context, target lockstep.Mode) ([]census.Entry, error) {
	if c.knobs.DrainSkipsRecheck {
		return nil, nil // the drain's last read stands in for the check
	}
	entries, err := census.Read(ctx, c.store, c.censusTable)
	if err != nil {
		return nil, err
	}
	return Blocking(entries, target), nil
}
