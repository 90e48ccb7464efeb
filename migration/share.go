package migration

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
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

var _ lockstep.Sharer = (*Locker)(nil)

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
	return l.algs.queue.Share(lk)
}

// Adopt makes this Locker a holder of the locks tok names
// (lockstep.Sharer), admitted as a Lock in mode new: an error wraps
// lockstep.ErrShareToken, lockstep.ErrIncompatibleMode or ErrStaleCensus,
// and writes nothing to the lock tables. The lock counts in the census,
// and joins a lockstep.WithReentrancy holder.
func (l *Locker) Adopt(ctx context.Context, tok string) (lockstep.Lock, error) {
	id, plan, err := l.algs.checkShare(tok)
	if err != nil {
		return nil, err
	}
	if !l.enter() {
		return nil, lockstep.ErrClosed
	}
	defer l.calls.Done()
	var skip func(string, lockstep.Access, string) bool
	if holder, ok := lockstep.ReentrancyHolder(ctx); ok {
		skip = func(id string, a lockstep.Access, owner string) bool { return l.groups.HeldFor(holder, id, a, owner) }
	}
	if l.cfg.knobs.AdoptWithoutCensus {
		// Planted: no flag, no admission, not counted in the census.
		locks, group, err := l.algs.queue.AdoptMembers(ctx, tok, skip)
		if err != nil {
			return nil, err
		}
		return l.wrapAdopted(ctx, id, plan, locks, group)
	}
	m, err := l.flag.Mode(ctx)
	if err != nil {
		return nil, fmt.Errorf("migration: adopt %q: mode flag: %w", id, err)
	}
	if m != lockstep.ModeNew {
		return nil, fmt.Errorf("%w: migration: process %s refuses to adopt %q: the token's lock is held in mode new and this process's flag says %v: "+
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
	t, err := l.guard(ctx, id, m)
	if err != nil {
		finish(t, false)
		return nil, err
	}
	locks, group, err := l.algs.queue.AdoptMembers(ctx, tok, skip)
	if err != nil {
		finish(t, false)
		return nil, err
	}
	if ok, _ := l.hb.trusted(t, false); !ok {
		// As acquire: the epoch ended while Adopt ran, so the Controller
		// may have moved the phase without seeing this process. Leave: the
		// giver still holds.
		uerr := unlockAll(ctx, locks)
		finish(t, false)
		return nil, errors.Join(l.hb.staleError(nil), uerr)
	}
	finish(t, true)
	for _, m := range locks {
		if m != nil { // nil: counted, bound when it was taken
			l.bind(held.Of(m), t)
		}
	}
	return l.wrapAdopted(ctx, id, plan, locks, group)
}

// unlockAll leaves the locks an Adopt took (nil: counted, not taken).
func unlockAll(ctx context.Context, locks []lockstep.Lock) error {
	var errs []error
	for _, lk := range locks {
		if lk != nil {
			errs = append(errs, lk.Unlock(context.WithoutCancel(ctx)))
		}
	}
	return errors.Join(errs...)
}

// wrapAdopted returns the locks the queue Locker adopted, one per member
// of plan (group: the token named a group), as this Locker's lock: a
// group through this Locker's manager (so that its Unlock and Lost are the
// manager's, as for the giver's group), joined to the reentrancy holder of
// ctx if there is one (a nil lock is a member the holder holds, counted);
// a flat lock without a holder as it is.
func (l *Locker) wrapAdopted(ctx context.Context, id string, plan []lockstep.Request, locks []lockstep.Lock, group bool) (lockstep.Lock, error) {
	if holder, ok := lockstep.ReentrancyHolder(ctx); ok {
		g, err := l.groups.AdoptedFor(holder, id, plan, locks)
		if err != nil {
			return nil, errors.Join(err, unlockAll(ctx, locks))
		}
		return g, nil
	}
	if !group {
		return locks[0], nil
	}
	return l.groups.Adopted(id, plan, locks), nil
}
