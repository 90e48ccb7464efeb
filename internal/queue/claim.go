package queue

import (
	"context"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lease"
)

// The claim: the step that takes the lock, and the rules that decide it.

// claim writes our owner cell (refreshing the queue cell in the same request),
// then reads the owner cells: alone means held (lemma 1). Otherwise it deletes
// the owner cell again. since is when the write was sent (a lease.Stamp),
// where a lease starts counting. With head set, the read must also show our
// queue cell first in line, as the fast path's does: a claim made without a
// read before it (after a wake-up, pace.go) must not bypass anyone.
func (a *attempt) claim(ctx context.Context, head bool) (ok bool, since int64, err error) {
	a.claims++
	a.claimed = true
	a.requests++
	settled := a.claimStarts()
	defer func() { settled(ok && err == nil) }()
	since = lease.Stamp(a.l.cfg.Clock)
	ev := a.claimEvidence()
	a.drawBeside(ctx, since)
	defer a.dropEarly(&ok, &err)
	qc := a.queueCell()
	a.sends.note(qc.Timestamp, since)
	if err := a.l.putClaim(ctx, a.id, append(ev, qc, a.ownerCell())...); err != nil {
		return false, 0, err
	}
	if a.knobs.SkipOwnerReread {
		return true, since, nil
	}
	v, err := a.read(ctx)
	if err != nil {
		return false, 0, err
	}
	a.evidence = v.evidence
	a.l.noteEvidence(a.id, v.evidence, a.drawnBefore)
	if a.claimWon(v, since, head) {
		return true, since, nil
	}
	if err := a.withdraw(ctx); err != nil {
		return false, 0, err
	}
	return false, 0, nil
}

// read is every read of this attempt's: of the whole partition from the
// floor, or, for an owner cell in the intention range, of all but that
// range and of our own cell (Locker.readAs). The turn's slot, hence our
// owner column, is known before the first read.
func (a *attempt) read(ctx context.Context) (view, error) {
	return a.l.readAs(ctx, a.id, &a.requests, a.l.column(a.access, a.slot))
}

// mayClaim is the one rule that decides, from a read v, whether to claim
// now (Lock's and TryLock's loops): no queue cell our access conflicts with
// is in front of ours, and no other owner cell conflicts with it. claimWon
// then decides the claim itself, from the claim's own read.
func (a *attempt) mayClaim(v view) bool {
	return a.clearAhead(v) && !v.blockedBy(a.owner, a.ocol, a.access)
}

// clearAhead reports whether no queue cell our access conflicts with is in
// front of ours in v (view.clearAhead). The planted ReaderBypass lets any
// access but Exclusive skip the check.
func (a *attempt) clearAhead(v view) bool {
	if a.knobs.ReaderBypass && a.access != lockstep.Exclusive {
		return true
	}
	return v.clearAhead(a.qcol, a.access)
}

// claimWon is the one rule that decides a claim, on every path that claims
// (claim, the fast path, a claim after a wake-up): the claim's read v shows
// our owner cell and no other owner cell our access conflicts with (won),
// our lease was still open when that read returned (inTime, from since, the
// claim write's send), and, with head, no queue cell our access conflicts
// with in front of ours (clearAhead: a claim made without a read before it
// must not bypass anyone). This is the queue lock's exclusion argument's
// success condition (docs/algorithms.md, section 4.4). A win records what
// the release needs: whether others were in line (crowded) and whom to wake
// (next).
func (a *attempt) claimWon(v view, since int64, head bool) bool {
	if head && !a.clearAhead(v) {
		return false
	}
	if !v.won(a.owner, a.ocol, a.access) || !a.inTime(since) {
		return false
	}
	a.crowded = v.crowded(a.qcol, a.access)
	a.next = v.successor(a.qcol, a.owner, a.access)
	if a.knobs.HandoffNamesLast && len(v.queue) > 0 && a.next.Column != "" {
		a.next = v.queue[len(v.queue)-1] // planted: not the next in line
	}
	if _, ok := v.handedTo(a.owner); ok {
		a.handed = true // Release deletes it too
	}
	return true
}

// claimStarts notes, for what runs beside this part (held.Request.Claims:
// the legacy half of a combined lock), that a claim's write is about to be
// sent; call the result with the claim's outcome. It only notes: the
// composer reads the notes on its own goroutine.
func (a *attempt) claimStarts() (settled func(won bool)) {
	return a.notes.Claiming()
}

// queueCell is this attempt's queue cell, with a fresh timestamp.
func (a *attempt) queueCell() lockstep.Cell {
	var wake string
	if w := a.l.cfg.wake; w != nil && !a.try {
		wake = w.Transport.Addr()
	}
	c := layout.WakeQueueCell(a.qcol, a.owner, a.access, wake, a.l.ts.Next(), a.l.cfg.Lease.TTL)
	if a.knobs.QueueCellsWithoutTTL {
		c.TTL = 0
	}
	return c
}

// ownerCell is this attempt's owner cell, with a fresh timestamp.
func (a *attempt) ownerCell() lockstep.Cell {
	c := layout.OwnerCell(a.ocol, a.owner, a.access, a.l.ts.Next(), a.l.cfg.Lease.TTL)
	if a.knobs.ReuseTombstonedTimestamp && a.lastDeleteTS != 0 {
		c.Timestamp = a.lastDeleteTS
	}
	return c
}

// ctxErr is the error of an attempt whose ctx ended, with the last store
// error it met, if any.
func (a *attempt) ctxErr(ctx context.Context, last error) error {
	if last != nil {
		return fmt.Errorf("queuelock: %q: %w (last store error: %v)", a.id, ctx.Err(), last)
	}
	return fmt.Errorf("queuelock: %q: %w", a.id, ctx.Err())
}

// storeErr is the error of a failed store request at step, or ctxErr's
// when ctx ended.
func (a *attempt) storeErr(step string, ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return a.ctxErr(ctx, nil)
	}
	return fmt.Errorf("queuelock: %q: %s: %w", a.id, step, err)
}
