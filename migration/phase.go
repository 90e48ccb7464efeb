package migration

import (
	"context"
	"fmt"
	"strings"

	"github.com/lockstep-go/lockstep"
)

// DefaultPhaseTable is the phase table's default name.
const DefaultPhaseTable = "fleet_phase"

// phaseRow and phaseColumn locate the phase cell in the phase table.
const (
	phaseRow    = "phase"
	phaseColumn = "phase"
)

// pendingPrefix marks an intent: "pending:<from>-><to>".
const pendingPrefix = "pending:"

// Phase is the fleet's migration phase: a committed Mode, or, while Target is
// set, a pending move from Mode to Target.
type Phase struct {
	Mode   lockstep.Mode
	Target lockstep.Mode
}

// Pending reports whether p is a pending move.
func (p Phase) Pending() bool { return p.Target != lockstep.ModeUnknown }

// String returns the text stored in the phase cell.
func (p Phase) String() string {
	if p.Pending() {
		return pendingPrefix + p.Mode.String() + "->" + p.Target.String()
	}
	return p.Mode.String()
}

// ParsePhase parses the text Phase.String writes.
func ParsePhase(s string) (Phase, error) {
	rest, pending := strings.CutPrefix(strings.TrimSpace(s), pendingPrefix)
	if !pending {
		m, err := lockstep.ParseMode(rest)
		return Phase{Mode: m}, err
	}
	from, to, ok := strings.Cut(rest, "->")
	if !ok {
		return Phase{}, fmt.Errorf("%w: phase %q (want pending:<from>-><to>)", lockstep.ErrInvalidMode, s)
	}
	f, err := lockstep.ParseMode(from)
	if err != nil {
		return Phase{}, fmt.Errorf("phase %q: %w", s, err)
	}
	t, err := lockstep.ParseMode(to)
	if err != nil {
		return Phase{}, fmt.Errorf("phase %q: %w", s, err)
	}
	if !adjacent(f, t) {
		return Phase{}, fmt.Errorf("%w: phase %q is not a one-step move", lockstep.ErrInvalidMode, s)
	}
	return Phase{Mode: f, Target: t}, nil
}

// adjacent reports whether a move from a to b is one step: legacy ↔ combined
// or combined ↔ new.
func adjacent(a, b lockstep.Mode) bool {
	return a.Valid() && b.Valid() && (a == lockstep.ModeCombined) != (b == lockstep.ModeCombined)
}

// modeSet is a set of modes, indexed by lockstep.Mode.
type modeSet [lockstep.ModeNew + 1]bool

func (s modeSet) has(m lockstep.Mode) bool { return m.Valid() && s[m] }

func (s modeSet) String() string {
	var names []string
	for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
		if s[m] {
			names = append(names, m.String())
		}
	}
	return strings.Join(names, ", ")
}

// allowedIn is the set of modes a process may take locks in during phase mode
// m: every pair in it is compatible, and it contains every mode a process may
// still run when the phase has just moved there one step.
func allowedIn(m lockstep.Mode) modeSet {
	switch m {
	case lockstep.ModeLegacy, lockstep.ModeCombined:
		return modeSet{lockstep.ModeLegacy: true, lockstep.ModeCombined: true}
	case lockstep.ModeNew:
		return modeSet{lockstep.ModeCombined: true, lockstep.ModeNew: true}
	}
	return modeSet{}
}

// Allowed is the set of modes a process may take locks in during p. While a
// move is pending it is the intersection of both ends' sets, so that whether
// the Controller commits or reverts, no lock was taken in a mode the final
// phase forbids.
func (p Phase) allowed() modeSet {
	a := allowedIn(p.Mode)
	if p.Pending() {
		b := allowedIn(p.Target)
		for i := range a {
			a[i] = a[i] && b[i]
		}
	}
	return a
}

// Allows reports whether locks may be taken in mode m during p.
func (p Phase) Allows(m lockstep.Mode) bool { return p.allowed().has(m) }

// phaseCell is the phase as read, with the timestamp of the winning write.
type phaseCell struct {
	phase Phase
	ts    int64 // 0 when the cell is absent
}

// readPhase reads the phase cell of table. A missing cell is Legacy: a fleet
// that never ran the migration is a legacy fleet. A cell that does not parse
// returns an error wrapping lockstep.ErrInvalidMode. ctx bounds the read.
func readPhase(ctx context.Context, store lockstep.Store, table string) (phaseCell, error) {
	cells, err := store.Read(ctx, table, phaseRow, lockstep.Slice{From: phaseColumn, To: phaseColumn + "\x00", Limit: 1})
	if err != nil {
		return phaseCell{}, fmt.Errorf("migration: reading phase: %w", err)
	}
	return phaseOf(cells, table)
}

// phaseOf decodes the phase cell read from table, if any (see readPhase).
func phaseOf(cells []lockstep.Cell, table string) (phaseCell, error) {
	if len(cells) == 0 {
		return phaseCell{phase: Phase{Mode: lockstep.ModeLegacy}}, nil
	}
	p, err := ParsePhase(string(cells[0].Value))
	if err != nil {
		return phaseCell{}, fmt.Errorf("migration: phase cell of table %s: %w", table, err)
	}
	return phaseCell{phase: p, ts: cells[0].Timestamp}, nil
}

// writePhase writes p into the phase cell of table with timestamp ts and no
// TTL. ctx bounds the write; on error the write may or may not have applied.
func writePhase(ctx context.Context, store lockstep.Store, table string, p Phase, ts int64) error {
	err := store.Put(ctx, table, phaseRow, lockstep.Cell{Column: phaseColumn, Value: []byte(p.String()), Timestamp: ts})
	if err != nil {
		return fmt.Errorf("migration: writing phase %v: %w", p, err)
	}
	return nil
}
