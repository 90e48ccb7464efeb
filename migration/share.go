package migration

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/cohort"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// Shared identities across migration Lockers (lockstep.Sharer;
// docs/algorithms.md, sections 7.4 and 8.7, Lemma 13). Only locks taken in
// mode new can be handed over: they are queue locks, and this Locker's
// queue Locker shares them. An adoption is an acquisition in mode new as
// far as the migration is concerned: it goes through the same admission
// as a Lock (the census publishes mode new in the current epoch before the
// phase is read, and the phase must allow new), the adopted lock counts in
// the census while held, and its Lost() closes when the census epoch it
// was admitted in ends.

var (
	_ lockstep.Sharer = (*Locker)(nil)
	_ manager.Adopter = modeSwitch{}
	_ manager.Sharer  = modeSwitch{}
	_ cohort.Sharer   = modeSwitch{}
	_ cohort.Extender = modeSwitch{}
)

// Share returns a token naming lk, held in mode new (lockstep.Sharer); a
// legacy or combined hold is refused with lockstep.ErrIncompatibleMode.
func (l *Locker) Share(lk lockstep.Lock) (string, error) {
	if lk == nil {
		return "", fmt.Errorf("%w: Share of a nil lock: pass a lock this Locker returned", lockstep.ErrInvalidConfig)
	}
	locks := []lockstep.Lock{lk}
	if g, ok := lk.(interface{ MemberLocks() []lockstep.Lock }); ok {
		locks = g.MemberLocks()
	}
	for _, m := range locks {
		if mode := m.Mode(); mode != lockstep.ModeNew {
			return "", fmt.Errorf("%w: migration: process %s cannot share %q: %q is held in mode %v, whose legacy cells have one renewer per owner; "+
				"only locks taken in mode new can be handed over: release it and take it again once this process's flag says new (phase new), "+
				"or hand over the work instead of the lock",
				lockstep.ErrIncompatibleMode, l.Process(), lk.ID(), m.ID(), mode)
		}
	}
	return l.m.Share(lk)
}

// Share is the mode switch's share (manager.Sharer): the queue core's, for
// a lock the caller checked was taken in mode new.
func (s modeSwitch) Share(lk lockstep.Lock) (string, error) { return s.l.algs.queue.Share(lk) }

// ShareHolds is Share below the local-handoff layer (cohort.Sharer): the
// queue core's, with holds naming the store holds of the members it
// granted.
func (s modeSwitch) ShareHolds(lk lockstep.Lock, holds map[*held.Lock]held.Part) (string, error) {
	return s.l.algs.queue.ShareHolds(lk, holds)
}

// Adopt makes this Locker a holder of the locks tok names
// (lockstep.Sharer), admitted as a Lock in mode new: an error wraps
// lockstep.ErrShareToken, lockstep.ErrIncompatibleMode or ErrStaleCensus,
// and writes nothing to the lock tables. The lock counts in the census; the
// Adopt of a Unit makes it the unit's.
func (l *Locker) Adopt(ctx context.Context, tok string) (lockstep.Lock, error) {
	return l.m.Adopt(ctx, tok)
}

// Adopt is the mode switch's adoption (manager.Adopter): the token checked
// with no request, the admission in mode new, the queue core's Adopt, and
// each member bound to the census epoch it was admitted in.
func (s modeSwitch) Adopt(ctx context.Context, tok string, skip func(id string, a lockstep.Access, owner string) bool) (
	string, []lockstep.Request, bool, []*held.Spec, error) {
	l := s.l
	id, plan, err := l.algs.queue.CheckShareToken(tok) // before the admission, with no request
	if err != nil {
		return "", nil, false, nil, err
	}
	if l.cfg.knobs.AdoptWithoutCensus {
		// Planted: no flag, no admission, not counted in the census.
		return l.algs.queue.Adopt(ctx, tok, skip)
	}
	m, err := l.flag.Mode(ctx)
	if err != nil {
		return "", nil, false, nil, fmt.Errorf("migration: adopt %q: mode flag: %w", id, err)
	}
	if m != lockstep.ModeNew {
		return "", nil, false, nil, fmt.Errorf("%w: migration: process %s refuses to adopt %q: the token's lock is held in mode new and this process's flag says %v: "+
			"adopt on a process whose flag says new, or set this one's flag to new (the phase must be new)",
			lockstep.ErrIncompatibleMode, l.Process(), id, m)
	}
	l.hb.setConfigured(m)
	// One acquisition per id, as Lock counts a group's members.
	for range plan {
		l.hb.begin(m)
	}
	finish := func(t ticket, ok bool) {
		for range plan {
			l.hb.finish(t, ok)
		}
	}
	t, _, err := l.guard(ctx, id, m)
	if err != nil {
		finish(t, false)
		return "", nil, false, nil, err
	}
	id, plan, group, specs, err := l.algs.queue.Adopt(ctx, tok, skip)
	if err != nil {
		finish(t, false)
		return "", nil, false, nil, err
	}
	if ok, _ := l.hb.trusted(t, false); !ok {
		// As Take: the epoch ended while Adopt ran, so the Controller may
		// have moved the phase without seeing this process. Leave: the
		// giver still holds.
		var errs []error
		for i := len(specs) - 1; i >= 0; i-- {
			if specs[i] != nil { // nil: counted, not adopted
				errs = append(errs, specs[i].Abandon(context.WithoutCancel(ctx)))
			}
		}
		finish(t, false)
		return "", nil, false, nil, errors.Join(l.hb.staleError(nil), errors.Join(errs...))
	}
	finish(t, true)
	for _, sp := range specs {
		if sp != nil { // nil: counted, bound when it was taken
			l.bind(sp, t)
		}
	}
	return id, plan, group, specs, nil
}
