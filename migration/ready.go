package migration

import (
	"cmp"
	"context"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/setup"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// ErrNotReady is wrapped by Ready's errors.
var ErrNotReady = setup.ErrNotReady

// lockTables are the lock tables of the Locker's algorithms, resolved as
// they resolve them.
func lockTables(o *Options) []string {
	q, g := deref.Of(deref.Of(o).Queue), deref.Of(deref.Of(o).Legacy)
	return []string{cmp.Or(g.MainTable, shadowlock.DefaultMainTable), cmp.Or(g.ShadowTable, shadowlock.DefaultShadowTable),
		cmp.Or(q.Table, queuelock.DefaultTable)}
}

// Ready checks that every table the Locker uses answers a read, that every
// table it writes takes one (a missing GRANT shows here), and that the
// phase allows the flag's mode. Its error wraps ErrNotReady and says what
// to do.
func (l *Locker) Ready(ctx context.Context) error {
	return l.m.Call(ctx, l.ready)
}

func (l *Locker) ready(ctx context.Context) error {
	if err := setup.ProbeTables(ctx, l.store, "migration: ", append(l.tables, l.cfg.censusTable, l.cfg.phaseTable)...); err != nil {
		return err
	}
	if f := l.algs.fencing; f != nil {
		if _, err := f.Read(ctx); err != nil {
			return notReady(ctx, fmt.Sprintf("the global time table (fencing tokens) does not answer a read: %v", err), err, setup.SchemaFix)
		}
	}
	writes := append(append([]string(nil), l.tables...), l.cfg.censusTable)
	if f := l.algs.fencing; f != nil {
		writes = append(writes, f.Table())
	}
	if err := setup.ProbeWrites(ctx, l.store, l.clock, "migration: ", writes...); err != nil {
		return err
	}
	phase, _, err := readPhaseRow(ctx, l.store, l.cfg.phaseTable)
	if err != nil {
		return notReady(ctx, fmt.Sprintf("table %s does not answer a read: %v", l.cfg.phaseTable, err), err, setup.SchemaFix)
	}
	m, err := l.flag.Mode(ctx)
	if err != nil {
		return notReady(ctx, fmt.Sprintf("the mode flag gives no mode: %v", err), err,
			"make the flag source answer legacy, combined or new (the file, variable or flag service it reads)")
	}
	if !phase.Allows(m) {
		me := &ModeError{ID: "(any)", Process: l.Process(), Configured: m, Phase: phase}
		return notReady(ctx, fmt.Sprintf("the flag gives mode %v, which fleet phase %v refuses (allowed: %v): every lock would fail with %v",
			m, phase, phase.allowed(), lockstep.ErrIncompatibleMode), me, fmt.Sprintf(
			"set the flag to a mode the phase allows (%v), or move the phase one step towards %v (lockctl phase set %v) once the fleet allows it",
			phase.allowed(), m, nextStep(phase.Mode, m)))
	}
	return nil
}

// nextStep is the phase one step from p towards m.
func nextStep(p, m lockstep.Mode) lockstep.Mode {
	switch {
	case m > p && p < lockstep.ModeNew:
		return p + 1
	case m < p && p > lockstep.ModeLegacy:
		return p - 1
	}
	return m
}

func notReady(ctx context.Context, what string, cause error, fix string) error {
	return setup.NotReady(ctx, "migration: ", what, cause, fix)
}
