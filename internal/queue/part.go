package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/layout"
)

// part is a held queue lock's share of an acquisition (internal/held): the
// queue and owner cells and the lease renewing them. held.Lock calls its
// methods one at a time.
type part struct {
	l           *Locker
	id          string
	owner       string
	qcol        string
	ocol        string
	access      lockstep.Access
	slot        int                 // the in-process turn's slot, held until the first Release
	stale       []string            // cells of this acquisition a failed delete left behind
	since       int64               // lease.Stamp of the winning claim's send
	next        layout.Entry        // the waiter behind us at the claim: woken on release (wake.go), or handed the lock (handoff.go)
	nextRead    <-chan layout.Entry // held by a grant: the read that learns next, until Release takes its answer (handoff.go)
	handed      string              // our handed cell's column, if a releaser may have written one (handoff.go)
	held.Leased                     // Stop, Expired

	turn     bool // the part still holds this process's turn on id, or its adoption column if beside (until its first Release)
	beside   bool // adopted beside this Locker's contenders: ocol is the adoption column (adoptcol.go), no turn is held
	released bool // the cells are deleted

	// shared is set by Share (on the giver) and by Adopt (on a receiver):
	// other processes may hold the lock under the same owner, so Release
	// leaves (share.go) instead of deleting the queue cell outright.
	shared atomic.Bool
	left   bool // shared: our owner cell is deleted, the queue cell's fate is decided next
	// shed is set once a renewal deleted the queue cell (renew); the
	// lease's goroutine sets it, Release reads it.
	shed atomic.Bool
}

var _ held.Part = (*part)(nil)

func newPart(a *attempt, since int64) *part {
	// The owner column is the Locker's, not this acquisition's: Release
	// deletes it only while it holds the turn, so it must not also come
	// back through the cells a failed delete of the attempt left behind.
	stale := slices.DeleteFunc(slices.Clone(a.stale), func(c string) bool { return c == a.ocol && !a.l.cfg.knobs.StaleOwnerColumn })
	p := &part{l: a.l, id: a.id, owner: a.owner, qcol: a.qcol, ocol: a.ocol, access: a.access, slot: a.slot,
		stale: stale, since: since, turn: true, next: a.next}
	if a.handed {
		p.handed = layout.HandedColumn(a.owner)
	}
	l, mode, loss := a.l, a.mode, a.loss
	rep := held.Reporting{Algorithm: "queuelock", Logger: l.cfg.Logger, Observer: l.cfg.Observer, ID: p.id, Owner: p.owner, Mode: mode}
	lc := l.cfg.Lease
	if p.access != lockstep.Exclusive {
		// Others may take the id beside us, leaving tombstones above our
		// queue cell's name: give it up after a Poll (renew).
		lc.FirstRenew = l.cfg.poll
	}
	p.Lease = l.leases.Start(lc, since, p.renew, rep.Hooks(loss, true))
	loss.Watch(p.Remaining)
	l.turns.Hold(p.id, p.slot) // the turn now stands for a hold: an adoption beside it is refused (adoptcol.go)
	return p
}

// renew rewrites the owner cell with a fresh timestamp and TTL. The first
// renewal that succeeds also deletes the queue cell, in the same request: a
// holder's place in line has done its work (docs/algorithms.md, section
// 4.13), and a queue cell left live for the whole hold would pin every
// reader's floor at its name, so that each read of the id steps over every
// tombstone left behind it meanwhile. That first renewal comes after Renew
// for an exclusive lock, which nobody takes beside it, and after a Poll for
// the other accesses (newPart). A shared lock (share.go) keeps its
// queue cell, as section 8.7 has it: the acquisition's, renewed by every
// holder, deleted by the last to leave (a holder that gave it up before
// Share writes it again). The planted HolderKeepsQueueCell renews the queue
// cell of every lock, for as long as it is held.
func (p *part) renew(ctx context.Context) error {
	ttl := p.l.cfg.Lease.TTL
	if p.l.cfg.knobs.HolderKeepsQueueCell || p.shared.Load() {
		return p.l.store.Put(ctx, p.l.cfg.table, p.id,
			layout.WakeQueueCell(p.qcol, p.owner, p.access, "", p.l.ts.Next(), ttl),
			layout.OwnerCell(p.ocol, p.owner, p.access, p.l.ts.Next(), ttl))
	}
	if p.shed.Load() {
		return p.l.store.Put(ctx, p.l.cfg.table, p.id, layout.OwnerCell(p.ocol, p.owner, p.access, p.l.ts.Next(), ttl))
	}
	// The tombstone's timestamp is above every write of the queue cell by
	// this Locker (R2); the owner cell's is above the tombstone's, which
	// does not touch it anyway.
	del := p.l.ts.Next()
	own := layout.OwnerCell(p.ocol, p.owner, p.access, p.l.ts.Next(), ttl)
	cols := []string{p.qcol}
	if p.handed != "" && !p.l.cfg.knobs.HolderKeepsHandedColumn {
		// A handed cell naming us was seen (section 4.12): we held by it,
		// or our claim counted it as ours. Its releaser may write it again
		// (a retry after a timeout) while we hold: the tombstone, above
		// every timestamp of our queue cell, makes that write dead on
		// arrival, as leaving the line does for a waiter. Our own owner
		// cell, in the same mutation, holds the lock from here.
		cols = append(cols, p.handed)
	}
	if m, ok := p.l.mutator(); ok {
		err := m.PutDelete(ctx, p.l.cfg.table, p.id, del, cols, own)
		if !errors.Is(err, errors.ErrUnsupported) {
			if err == nil {
				p.shed.Store(true)
			}
			return err
		}
		p.l.noMutator.Store(true) // a wrapper over a store without it: as below from now on
	}
	// A store without one request for both: the renewal is the Put; the
	// delete is best effort, tried again at the next renewal.
	if err := p.l.store.Put(ctx, p.l.cfg.table, p.id, own); err != nil {
		return err
	}
	if p.l.store.Delete(ctx, p.l.cfg.table, p.id, del, cols...) == nil {
		p.shed.Store(true)
	}
	return nil
}

// learnNext waits, if this hold came by a grant, for the read that learns
// the waiter behind us (holdGranted); a Release whose ctx ends first wakes
// nobody.
func (p *part) learnNext(ctx context.Context) {
	if p.nextRead == nil {
		return
	}
	select {
	case p.next = <-p.nextRead:
	case <-ctx.Done():
	}
	p.nextRead = nil
}

// Release deletes this acquisition's queue and owner cells in one request
// (with a timestamp above every write of theirs); then the next goroutine of
// this process waiting for the id may contend. The first call passes the
// turn on whatever the delete's outcome (the cells expire after the TTL if
// nobody retries). The owner cell is shared by every acquisition of this
// Locker that has the same turn slot, so a retry deletes it only while no
// other goroutine of this process holds that slot of the id; otherwise
// that goroutine's claim has rewritten it.
func (p *part) Release(ctx context.Context) (bool, error) {
	if p.released {
		return false, nil
	}
	if p.shared.Load() {
		return p.leave(ctx)
	}
	// The first call holds the turn (the part owns it); a retry takes its
	// slot back only if no acquisition holds it (Turns.Reserve), so its
	// owner-cell delete cannot reach a newer acquisition's cell, whatever
	// other slots are held meanwhile.
	turn, slot := p.turn, p.slot
	switch {
	case turn:
	case p.l.cfg.knobs.RetryNeedsFreeID:
		slot, turn = p.l.turns.TryTake(p.id, lockstep.Exclusive)
	default:
		turn = p.l.turns.Reserve(p.id, p.slot)
	}
	p.turn = false
	cols := []string{p.qcol}
	if turn {
		cols = append(cols, p.ocol)
	}
	if p.handed != "" {
		cols = append(cols, p.handed)
	}
	cols = append(cols, p.stale...)
	p.learnNext(ctx)
	var err error
	handed, m, handoff := p.handoffTo(turn)
	grant := false
	if handoff {
		// This process's next Lock of the id takes the slow path for a
		// TTL, before the handoff is sent: a fast-path claim would write
		// our owner column again, and its withdrawal could cover our cell
		// on a replica the handoff has not reached, where a third
		// process's read must still meet it (docs/algorithms.md, section
		// 4.12, "A later acquisition of the releaser's Locker").
		if !p.l.cfg.knobs.HandoffKeepsFastPath {
			p.l.contended(p.id)
		}
		// One request ends our hold and makes the next waiter the owner
		// (handoff.go). If our lease was still open when it was
		// acknowledged, the wake-up grants the lock; otherwise the
		// waiter's confirmation read decides.
		err = m.PutDelete(ctx, p.l.cfg.table, p.id, p.l.ts.Next(), cols, p.l.withEvidence([]lockstep.Cell{handed})...)
		grant = err == nil && (!p.Lease.IsLost() || p.l.cfg.knobs.GrantWithoutLeaseCheck)
		if errors.Is(err, errors.ErrUnsupported) {
			p.l.noMutator.Store(true) // it sent nothing: release as without Handoff
			handoff = false
		}
	}
	if !handoff {
		err = p.l.remove(ctx, p.id, p.l.ts.Next(), cols...)
	}
	if turn {
		p.l.turns.Leave(p.id, slot)
	}
	if err != nil {
		return true, fmt.Errorf("queuelock: unlock %q: %w", p.id, err)
	}
	p.released = true
	// The cells are gone (a QUORUM delete acknowledged): a read the
	// wake-up causes sees that (lemma 1), and after a handoff the handed
	// cell, whose timestamp the wake-up names.
	from := p.qcol
	if handoff {
		from = handoffWakeFrom(handed.Timestamp, grant)
	}
	p.l.sendWake(p.id, from, p.next)
	return true, nil
}
