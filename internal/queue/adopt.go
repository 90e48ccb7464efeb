package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lease"
)

// Adopt makes this Locker a holder of the lock tok names (lockstep.Sharer;
// manager.Adopter): per id it reads that another holder is still there,
// writes its own owner cell and reads again. It returns the token's handle
// id, its members, whether it names a group, and one held spec per member,
// nil for a member skip accepts (given the member's id, access and owner):
// the adopting unit holds that acquisition already, and a second holder of
// it in this Locker would contend with the first (for an exclusive access,
// refused as ErrLocked). An id that fails undoes its writes and is named
// in the error, and the ids adopted before it are left again (the giver
// still holds them).
func (l *Locker) Adopt(ctx context.Context, tok string, skip func(id string, a lockstep.Access, owner string) bool) (
	string, []lockstep.Request, bool, []*held.Spec, error) {
	t, err := decodeShareToken(tok)
	if err != nil {
		return "", nil, false, nil, err
	}
	if err := l.fits(t); err != nil {
		return "", nil, false, nil, err
	}
	specs := make([]*held.Spec, len(t.Members))
	members := make([]lockstep.Request, len(t.Members))
	for i, m := range t.Members {
		members[i] = lockstep.Request{ID: m.Name, Access: m.Access}
		if skip != nil && skip(m.Name, m.Access, m.Owner) {
			continue
		}
		s, err := l.adoptOne(ctx, m)
		if err != nil {
			for j := i - 1; j >= 0; j-- {
				if specs[j] != nil {
					_ = specs[j].Abandon(context.WithoutCancel(ctx)) // leaves: the giver still holds them
				}
			}
			return "", nil, false, nil, err
		}
		specs[i] = &s
	}
	return t.ID, members, len(t.Plan) != 0, specs, nil
}

// fits refuses a token this Locker cannot continue, before any request.
func (l *Locker) fits(t shareToken) error {
	bad := func(what, theirs, ours string) error {
		return fmt.Errorf("%w: the token's %s is %q, this Locker's %q: adopt on a Locker built with the giver's options and store",
			lockstep.ErrShareToken, what, theirs, ours)
	}
	switch {
	case t.Table != l.cfg.table:
		return bad("table", t.Table, l.cfg.table)
	case t.Scope != l.scope.String():
		return bad("scope", t.Scope, l.scope.String())
	case t.Sep != l.cfg.Separator:
		return bad("separator", t.Sep, l.cfg.Separator)
	case len(t.Plan) != 0 && len(t.Plan) != len(t.Members):
		return fmt.Errorf("%w: its plan and members differ: pass the string the giver's Share returned, unchanged", lockstep.ErrShareToken)
	}
	for i, m := range t.Members {
		if err := lockstep.ValidateID(m.Name); err != nil {
			return fmt.Errorf("%w: %w", lockstep.ErrShareToken, err)
		}
		if m.Row != l.row(m.Name) || len(t.Plan) != 0 && (t.Plan[i].ID != m.Name || t.Plan[i].Access != m.Access) {
			return fmt.Errorf("%w: member %q does not match this Locker's layout: pass the string the giver's Share returned, unchanged",
				lockstep.ErrShareToken, m.Name)
		}
	}
	return nil
}

// adoptOne adopts one id of a token, in the owner column place gives it
// (adoptcol.go). A read that shows another owner's owner cell in a
// conflicting access beside the holder's (a claim in progress, this
// Locker's own waiter's too, or a withdrawn one's cell awaiting its TTL)
// makes it withdraw and try again a poll later, as a claim would, until
// ctx ends.
func (l *Locker) adoptOne(ctx context.Context, m shareMember) (held.Spec, error) {
	ocol, slot, beside, err := l.place(m)
	if err != nil {
		return held.Spec{}, err
	}
	for {
		v, since, err := l.tryAdopt(ctx, m, ocol)
		if errors.Is(err, errThirdOwner) {
			if serr := l.cfg.Clock.Sleep(ctx, l.cfg.poll); serr == nil {
				continue
			}
		}
		if err != nil {
			if beside {
				l.dropColumn(m.Row)
			} else {
				l.turns.Leave(m.Row, slot)
			}
			if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
				err = fmt.Errorf("%w (%w)", ctx.Err(), err)
			}
			return held.Spec{}, fmt.Errorf("queuelock: adopt %q: %w", m.Name, err)
		}
		return l.adopted(m, ocol, slot, beside, since, v), nil
	}
}

// errThirdOwner is tryAdopt's "another owner's cell conflicts: try again".
var errThirdOwner = fmt.Errorf("%w: another owner's owner cell conflicts beside the holder's", lockstep.ErrLocked)

// tryAdopt is one attempt of steps 2 to 4 (docs/algorithms.md, section
// 8.7): read for a witness, write our owner cell and the queue cell, read
// again. On failure it has withdrawn what it wrote.
func (l *Locker) tryAdopt(ctx context.Context, m shareMember, ocol string) (v view, since int64, err error) {
	requests := 0
	if v, err = l.read(ctx, m.Row, &requests); err != nil {
		return v, 0, err
	}
	if !l.cfg.knobs.AdoptWithoutWitness && !witnessed(v, m, ocol) {
		return v, 0, notHeld(m)
	}
	since = lease.Stamp(l.cfg.Clock)
	l.noteAdoptedToken(m.Token)
	err = l.store.Put(ctx, l.cfg.table, m.Row, l.withEvidence([]lockstep.Cell{
		layout.WakeQueueCell(m.Queue, m.Owner, m.Access, "", l.ts.Next(), l.cfg.Lease.TTL),
		layout.OwnerCell(ocol, m.Owner, m.Access, l.ts.Next(), l.cfg.Lease.TTL)})...)
	gone := false // the second read showed no other holder
	if err == nil && !l.cfg.knobs.AdoptWithoutWitness {
		v, err = l.read(ctx, m.Row, &requests)
		gone = err == nil && !witnessed(v, m, ocol)
		switch {
		case err != nil:
		case gone || !hasOwnCell(v, m, ocol):
			err = notHeld(m)
		case thirdOwner(v, m):
			err = errThirdOwner
		case !l.cfg.Lease.InTime(l.cfg.Clock, since):
			err = fmt.Errorf("%w: the store answered after the lease window; adopt again while the giver holds", lockstep.ErrLost)
		}
	}
	if err != nil {
		l.unadopt(context.WithoutCancel(ctx), m, ocol, gone)
	}
	return v, since, err
}

// adopted starts the lease of an adoption that succeeded and returns its
// held spec: a part holding its turn, marked a hold (Turns.Hold), or,
// beside this Locker's contenders, the adoption column.
func (l *Locker) adopted(m shareMember, ocol string, slot int, beside bool, since int64, v view) held.Spec {
	p := &part{l: l, id: m.Row, owner: m.Owner, qcol: m.Queue, ocol: ocol, access: m.Access, slot: slot,
		since: since, turn: true, beside: beside, next: v.after(m.Queue)}
	if !beside {
		l.turns.Hold(m.Row, slot)
	}
	p.shared.Store(true)
	loss := held.NewLoss()
	rep := held.Reporting{Algorithm: "queuelock", Logger: l.cfg.Logger, Observer: l.cfg.Observer, ID: m.Row, Owner: m.Owner, Mode: lockstep.ModeNew}
	p.Lease = l.leases.Start(l.cfg.Lease, since, p.renew, rep.Hooks(loss, true))
	loss.Watch(p.Remaining)
	return held.Spec{ID: m.Name, Owner: m.Owner, Mode: lockstep.ModeNew, Token: m.Token,
		Parts: []held.Part{p}, Loss: loss, Since: since}
}

// witnessed reports whether v shows another holder of m: an owner cell of
// m's owner and access in a column other than ours.
func witnessed(v view, m shareMember, ocol string) bool {
	for _, e := range v.owners {
		if e.Column != ocol && e.Owner == m.Owner && e.Access == m.Access {
			return true
		}
	}
	return false
}

// thirdOwner reports whether v shows an owner cell of another owner in an
// access that conflicts with m's: the adoption's read, like a claim's, must
// show none (docs/algorithms.md, section 8.7, lemma 12).
func thirdOwner(v view, m shareMember) bool {
	for _, e := range v.owners {
		if e.Owner != m.Owner && !m.Access.Compatible(e.Access) {
			return true
		}
	}
	return false
}

// hasOwnCell reports whether v shows our own owner cell for m.
func hasOwnCell(v view, m shareMember, ocol string) bool {
	for _, e := range v.owners {
		if e.Column == ocol && e.Owner == m.Owner {
			return true
		}
	}
	return false
}

func notHeld(m shareMember) error {
	return fmt.Errorf("%w: no holder of owner %s is left in the store (released, expired, or kept in another keyspace); the giver must still hold the lock when Adopt runs",
		lockstep.ErrReleased, m.Owner)
}

// unadopt deletes the owner cell a failed adoption may have written, and
// the queue cell too when no other holder is left (our write may have
// renewed it after the last holder deleted it). Errors are left to the
// TTL: nobody renews these cells.
func (l *Locker) unadopt(ctx context.Context, m shareMember, ocol string, last bool) {
	cols := []string{ocol}
	if last {
		cols = append(cols, m.Queue)
	}
	_ = l.remove(ctx, m.Row, l.ts.Next(), cols...)
}
