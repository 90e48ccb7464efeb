package queue

import (
	"context"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/cohort"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// Shared identities (lockstep.Sharer; docs/algorithms.md, section 8.7).
// Every process holding a shared lock has an owner cell of its own in the
// lock's partition, in its own column, with the same value: the owner id
// and access the lock was acquired with. The queue cell is the
// acquisition's, and every holder renews it. A third process counts each
// of those owner cells as a holder, so it is kept out while any of them
// lives. Leaving deletes one's own owner cell and then, if a read shows no
// other owner cell of the owner, the queue cell: the last to leave
// releases.

var (
	_ manager.Adopter = (*Locker)(nil)
	_ manager.Sharer  = (*Locker)(nil)
	_ cohort.Sharer   = (*Locker)(nil)
)

// Share returns a token naming l, which this Locker returned and still
// holds, as lockstep.Sharer says. It sends no request. From now on l's
// Unlock leaves the lock to the other holders instead of deleting it.
func (l *Locker) Share(lk lockstep.Lock) (string, error) { return l.ShareHolds(lk, nil) }

// ShareHolds is Share for a lock some of whose members hold a store hold
// of this Locker's through a layer above it (internal/cohort's local
// handoff, whose grant is the member's one part): holds maps such a
// member to the queue part its grant holds, which is shared in its place,
// under the member's own ID and fencing token. The layer marked those
// grants so that they are no longer handed on before it called.
func (l *Locker) ShareHolds(lk lockstep.Lock, holds map[*held.Lock]held.Part) (string, error) {
	if lk == nil {
		return "", fmt.Errorf("%w: Share of a nil lock: pass a lock this Locker returned", lockstep.ErrInvalidConfig)
	}
	t := shareToken{Table: l.cfg.table, Scope: l.scope.String(), Sep: l.cfg.Separator, ID: lk.ID()}
	locks := []lockstep.Lock{lk}
	if g, ok := lk.(interface {
		MemberLocks() []lockstep.Lock
		Members() []lockstep.Request
	}); ok {
		locks, t.Plan = g.MemberLocks(), g.Members()
	}
	parts := make([]*part, 0, len(locks))
	for _, m := range locks {
		p, h, err := l.ownPart(m, lk.ID(), holds)
		if err != nil {
			return "", err
		}
		parts = append(parts, p)
		t.Members = append(t.Members, shareMember{Name: h.ID(), Row: p.id, Owner: p.owner, Access: p.access,
			Queue: p.qcol, Token: h.DrawnToken()})
	}
	select {
	case <-lk.Lost():
		return "", fmt.Errorf("queuelock: share %q: %w: a lost lock cannot be handed over; acquire it again", lk.ID(), lockstep.ErrLost)
	default:
	}
	tok, err := encodeShareToken(t)
	if err != nil {
		return "", err
	}
	for _, p := range parts {
		p.shared.Store(true)
		if l.cfg.knobs.ShareStopsGiver {
			p.Stop() // planted: nobody renews until the receiver's Adopt
		}
	}
	return tok, nil
}

// ownPart returns the queue part of m, a lock (or a group's member) this
// Locker's own acquisition returned, or the store hold's part holds names
// for it, and that is not released.
func (l *Locker) ownPart(m lockstep.Lock, id string, holds map[*held.Lock]held.Part) (*part, *held.Lock, error) {
	h := held.Of(m)
	if h == nil {
		return nil, nil, fmt.Errorf("%w: share %q: a %T is not a lock a queuelock.Locker returned: share it on the Locker that took it",
			lockstep.ErrInvalidConfig, id, m)
	}
	if h.Mode() != lockstep.ModeNew || len(h.Parts()) != 1 {
		return nil, nil, fmt.Errorf("%w: share %q: a lock in mode %v cannot be shared: only the queue lock's (mode new) can, since the legacy lock has one renewer per owner",
			lockstep.ErrIncompatibleMode, id, h.Mode())
	}
	hp := h.Parts()[0]
	if in, ok := holds[h]; ok {
		hp = in
	}
	p, ok := hp.(*part)
	if !ok || p.l != l {
		return nil, nil, fmt.Errorf("%w: share %q: the lock was taken by another Locker: share it on the Locker that took it",
			lockstep.ErrInvalidConfig, id)
	}
	if h.Ended() {
		return nil, nil, fmt.Errorf("queuelock: share %q: %w: it was unlocked", id, lockstep.ErrReleased)
	}
	return p, h, nil
}

// leave is Release for a shared lock: delete our owner cell, then read;
// the queue cell is deleted only if no other holder's owner cell is left.
// Two holders leaving at once both see the other's cell only if neither
// read followed the other's delete, which QUORUM reads after acknowledged
// deletes rule out; a delete of unknown outcome may leave the queue cell
// to expire after the TTL, which only delays the next holder.
func (p *part) leave(ctx context.Context) (bool, error) {
	if !p.left {
		turn := p.turn
		switch {
		case turn:
		case p.beside:
			turn = p.l.takeColumn(p.id, p.access)
		default:
			turn = p.l.turns.Reserve(p.id, p.slot)
		}
		p.turn = false
		var err error
		if turn {
			cols := []string{p.ocol}
			if p.handed != "" {
				// Held by a handoff (section 4.12) and shared before a
				// renewal gave the handed cell up: it carries our owner id,
				// so left behind it would read as another holder below.
				cols = append(cols, p.handed)
			}
			err = p.l.remove(ctx, p.id, p.l.ts.Next(), append(cols, p.stale...)...)
			if p.beside {
				p.l.dropColumn(p.id)
			} else {
				p.l.turns.Leave(p.id, p.slot)
			}
		}
		if err != nil {
			return true, fmt.Errorf("queuelock: unlock %q: deleting this holder's owner cell: %w", p.id, err)
		}
		p.left = true
	}
	var n int
	v, err := p.l.read(ctx, p.id, &n)
	if err != nil {
		return true, fmt.Errorf("queuelock: unlock %q: looking for other holders: %w", p.id, err)
	}
	if v.holding(p.owner) {
		p.released = true // another holder stays: the queue cell is its now
		return true, nil
	}
	if err := p.l.store.Delete(ctx, p.l.cfg.table, p.id, p.l.ts.Next(), p.qcol); err != nil {
		return true, fmt.Errorf("queuelock: unlock %q: the last holder deleting the queue cell: %w", p.id, err)
	}
	p.released = true
	p.learnNext(ctx) // held by a grant: whom to wake
	p.l.sendWake(p.id, p.qcol, p.next)
	return true, nil
}
