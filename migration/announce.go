package migration

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
)

// announceColumn is the cell of the phase row (beside phaseColumn) in which
// a Controller draining the census announces the move it is waiting to
// make, as the text of its intent ("pending:<from>-><to>"), with a TTL. Only
// PhaseFlag reads it, to switch its fleet before the intent is written; the
// Locker's guard never does, so an announcement refuses no lock. It sorts
// before phaseColumn, outside the slice the guard reads.
const announceColumn = "announce"

// announceMargin is added to the Drain for the announcement's TTL: it must
// outlive the drain and the intent's check, and vanish soon after a
// Controller that died without withdrawing it.
const announceMargin = 10 * time.Second

// announcement is the announcement one Set wrote, if any.
type announcement struct {
	written bool
}

// publish writes the announcement of move p, unless it was written
// already. ctx bounds the write.
func (a *announcement) publish(ctx context.Context, c *Controller, p Phase) error {
	if a.written {
		return nil
	}
	// Whatever the outcome, a withdrawal is due: a write that timed out may
	// have applied.
	a.written = true
	ttl := (c.drain + announceMargin + time.Second - 1).Truncate(time.Second)
	err := c.store.Put(ctx, c.phaseTable, phaseRow, lockstep.Cell{Column: announceColumn, Value: []byte(p.String()),
		Timestamp: c.ts.Next(), TTL: ttl})
	if err != nil {
		return fmt.Errorf("migration: announcing the move %v: %w", p, err)
	}
	return nil
}

// withdraw deletes the announcement if one was written. A failure is not
// reported: the announcement steers only PhaseFlag fleets, never safety, and
// expires after its TTL.
func (a *announcement) withdraw(ctx context.Context, c *Controller) {
	if a.written {
		_ = c.store.Delete(ctx, c.phaseTable, phaseRow, c.ts.Next(), announceColumn)
		a.written = false
	}
}

// readPhaseRow reads the phase and the announcement, if any, in one read.
// An announcement that does not parse is ignored: it only steers PhaseFlag.
// ctx bounds the read.
func readPhaseRow(ctx context.Context, store lockstep.Store, table string) (p Phase, announced Phase, err error) {
	cells, err := store.Read(ctx, table, phaseRow, lockstep.Slice{From: announceColumn, To: phaseColumn + "\x00"})
	if err != nil {
		return Phase{}, Phase{}, fmt.Errorf("migration: reading phase: %w", err)
	}
	var phase []lockstep.Cell
	for _, c := range cells {
		switch c.Column {
		case phaseColumn:
			phase = append(phase, c)
		case announceColumn:
			if a, perr := ParsePhase(string(c.Value)); perr == nil && a.Pending() {
				announced = a
			}
		}
	}
	pc, err := phaseOf(phase, table)
	return pc.phase, announced, err
}
