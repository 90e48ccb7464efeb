package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lease"
)

// maxTryClaims bounds TryLock's claim loop (listing 8, steps 4–10): a claim
// fails only when another owner cell appeared meanwhile, a concurrent
// attempt, retried as lockstep.Locker's contract says before TryLock
// reports it.
const maxTryClaims = lockstep.MaxTryAttempts

// attempt is one Lock or TryLock call.
type attempt struct {
	l      *Locker
	id     string // the row the lock is kept in (Locker.row): the caller's id in the store's scope
	owner  string
	try    bool
	mode   lockstep.Mode   // the mode the caller asked for (lease events)
	access lockstep.Access // what the acquisition asks of the id (docs/algorithms.md, section 4.2)
	slot   int             // our in-process turn's slot: names our owner cell (layout.SlotColumn)
	loss   *held.Loss      // the acquisition's loss signal, fired by the lease
	// notes is held.Request.Claims of a part's acquisition (package
	// combined), nil otherwise: notes every claim and its outcome.
	notes *held.Claims
	fence bool  // draw a fencing token (Options.Fencing) for this lock alone
	block int   // tokens the draw reserves (manager.Acquisition.TokenBlock)
	token int64 // the token drawn: the first of the block
	// early is the token draw sent beside the current claim
	// (Options.Evidence EvidenceUse), or the token taken for it from the
	// values drawn ahead, nil if none; earlySent is when the read of the
	// draw ahead was sent (elapsed µs; math.MaxInt64 for a draw beside the
	// claim, sent after it); evidence is the evidence cell's token the
	// claim's read returned (evidence.go).
	early     earlyDraw
	earlySent int64
	evidence  int64
	// aheadSince is manager.Acquisition.AheadSince: values drawn ahead
	// serve only if their draw's read was sent after it.
	aheadSince int64
	// drawnBefore is the Fencing's Drawn before the current claim's draw
	// or take (-1: the claim draws nothing beside it), for noteEvidence.
	drawnBefore int64

	time    int64    // the enqueue time naming our cells
	qcol    string   // our queue cell
	ocol    string   // our owner cell: the Locker's (internal/layout)
	queued  bool     // a queue cell of ours may exist
	stale   []string // cells of ours whose delete failed, under older names
	claimed bool     // an owner cell of ours may exist
	turn    bool     // we hold this process's turn on id
	wait    *lease.Lease

	requests int
	claims   int
	crowded  bool // the winning claim's read saw others in line

	next  layout.Entry // the waiter behind us at our winning claim's read: whom Unlock wakes
	pace  pacer        // how fast the line moves (pace.go)
	woken bool         // the last pause ended by a wake-up
	// ahead is the queue column of the last entry we saw right in front of
	// us before it held: its claim's read saw us behind it, so its release
	// wakes us; aheadOwner is its owner id, by which its owner cell shows
	// it holding once it has given its queue cell up (part.renew). expect:
	// at our last read that entry headed the line and we were next
	// (wakehealth.go).
	ahead, aheadOwner string
	aheadAccess       lockstep.Access
	expect            bool
	// handed: a handed cell naming us may exist (section 4.12); our
	// deletes include it. sends: our queue cell's recent writes (handoff.go).
	handed bool
	sends  queueSends

	knobs        *TestingKnobs // planted defects; zero in production
	lastDeleteTS int64         // timestamp of our last owner-cell delete (for TestingKnobs.ReuseTombstonedTimestamp)
}

func (a *attempt) run(ctx context.Context) (*part, error) {
	a.knobs = &a.l.cfg.knobs
	if a.try {
		slot, ok := a.l.turns.TryTake(a.id, a.access)
		if !ok {
			return nil, fmt.Errorf("queuelock: %q: %w (held or awaited in this process)", a.id, lockstep.ErrLocked)
		}
		a.slot = slot
	} else {
		slot, err := a.l.turns.Take(ctx, a.id, a.access)
		if err != nil {
			return nil, fmt.Errorf("queuelock: %q: waiting in process: %w", a.id, err)
		}
		a.slot = slot
	}
	a.turn = true
	a.pace.pos = -1
	var (
		h   *part
		err error
	)
	if a.try {
		h, err = a.tryLock(ctx)
	} else {
		h, err = a.lock(ctx)
	}
	if a.l.wake != nil && a.qcol != "" {
		a.l.wake.unregister(a.qcol)
	}
	if err != nil {
		a.abandon(ctx)
		return nil, err
	}
	return h, nil
}

// lock is listing 7 with refinements: enqueue, then until first in line and
// alone in the owner cells, re-read; a waiter renews its queue cell so a long
// wait keeps its place, and re-enqueues if its cell vanished anyway.
func (a *attempt) lock(ctx context.Context) (*part, error) {
	var lastErr error
	retry := func(err error) error {
		if errors.Is(err, lockstep.ErrForeignCell) || errors.Is(err, lockstep.ErrRefused) {
			return fmt.Errorf("queuelock: %q: %w", a.id, err) // no retry can help (view.go, parse; a permission, a table)
		}
		if ctx.Err() != nil {
			return a.ctxErr(ctx, lastErr)
		}
		lastErr = err
		a.l.cfg.Logger.Warn("queuelock: store error while waiting", slog.String("id", a.id), slog.Any("err", err))
		if err := a.l.cfg.Clock.Sleep(ctx, a.l.cfg.poll); err != nil {
			return a.ctxErr(ctx, lastErr)
		}
		return nil
	}
	needPlace := true
	// The planted SkipOwnerReread defect lives in claim; the fast path's one
	// read also checks the queue, so skipping it there would plant a
	// different bug (bypass), not the one the control names.
	if !a.knobs.SkipOwnerReread && (a.l.fastPathOK(a.id) || a.knobs.IgnoreContentionHint && !a.l.cfg.noFast) {
		ok, since, err := a.fastClaim(ctx)
		switch {
		case err != nil:
			// Whatever landed is cleaned up by the dequeue below, and the
			// slow path starts afresh.
			if err := retry(err); err != nil {
				return nil, err
			}
		case ok:
			h, err := a.keep(ctx, since, retry)
			if h != nil || err != nil {
				return h, err
			}
			// The claim was given up (token): our queue cell stands.
			needPlace = false
		default:
			needPlace = false // our queue cell stands: wait in line
		}
	}
	for {
		a.retryStale(ctx)
		if needPlace {
			a.dequeue(ctx) // drop a place that is gone or never confirmed
			if err := a.enqueue(ctx); err != nil {
				if err := retry(err); err != nil {
					return nil, err
				}
				continue
			}
			needPlace = false
		}
		v, err := a.read(ctx)
		if err != nil {
			if err := retry(err); err != nil {
				return nil, err
			}
			continue
		}
		if !v.queued(a.qcol) || a.wait.IsLost() || v.hides(a.time) {
			// Our cell expired (renewals failed), or fell below the floor
			// of some process (floor.go): the place is gone or unseen, so
			// take a new one, after a pause so that a persistent cause
			// cannot turn this into a busy loop.
			needPlace = true
			if err := a.l.cfg.Clock.Sleep(ctx, a.l.cfg.poll); err != nil {
				return nil, a.ctxErr(ctx, lastErr)
			}
			continue
		}
		if a.handoffMissed(v) {
			a.l.wakeMissed(a.id)
		}
		if a.mayClaim(v) {
			ok, since, err := a.claim(ctx, false)
			if err != nil {
				if err := retry(err); err != nil {
					return nil, err
				}
				continue
			}
			if ok {
				h, err := a.keep(ctx, since, retry)
				if h != nil || err != nil {
					return h, err
				}
				continue
			}
			// Lost the claim race (lemma 1). Pause before looking again, so
			// that contenders who both lost do not retry in lockstep.
			if err := a.l.cfg.Clock.Sleep(ctx, a.l.cfg.poll); err != nil {
				return nil, a.ctxErr(ctx, lastErr)
			}
			continue
		}
		// The waiter next in line re-reads more often: its poll is the
		// handoff's latency, while the others' only decides when they notice
		// that they moved up (pace.go).
		if err := a.pause(ctx, v); err != nil {
			return nil, a.ctxErr(ctx, lastErr)
		}
		if a.woken {
			a.ahead, a.aheadOwner, a.expect = "", "", false // the handoff came with its wake-up
			if h, err := a.onWake(ctx, retry); h != nil || err != nil {
				return h, err
			}
		}
	}
}

// nextPoll is the re-read interval of the waiter next in line: Poll/4, but
// not below a millisecond (nor above Poll).
func (l *Locker) nextPoll() time.Duration {
	return min(l.cfg.poll, max(l.cfg.poll/4, time.Millisecond))
}

// tryLock is listing 8, writing nothing when the lock is visibly busy.
func (a *attempt) tryLock(ctx context.Context) (*part, error) {
	v, err := a.read(ctx)
	if err != nil {
		return nil, a.storeErr("read", ctx, err)
	}
	if v.busyFor(a.access) {
		return nil, fmt.Errorf("queuelock: %q: %w", a.id, lockstep.ErrLocked)
	}
	if err := a.enqueue(ctx); err != nil {
		return nil, a.storeErr("enqueue", ctx, err)
	}
	for range maxTryClaims {
		v, err := a.read(ctx)
		if err != nil {
			return nil, a.storeErr("read", ctx, err)
		}
		if !a.mayClaim(v) {
			break
		}
		ok, since, err := a.claim(ctx, false)
		if err != nil {
			return nil, a.storeErr("claim", ctx, err)
		}
		if ok {
			h, err := a.held(ctx, since)
			if err != nil {
				return nil, fmt.Errorf("queuelock: %q: %w", a.id, err)
			}
			return h, nil
		}
	}
	return nil, fmt.Errorf("queuelock: %q: %w", a.id, lockstep.ErrLocked)
}

// enqueue names our cells with a fresh hybrid-logical time and writes the
// queue cell; a waiter's renewal starts with it.
func (a *attempt) enqueue(ctx context.Context) error {
	a.time = a.l.hlc.Now()
	a.qcol, a.ocol = layout.QueueColumn(a.time, a.owner), a.l.column(a.access, a.slot)
	a.queued = true // even a failed write may have landed
	a.requests++
	sent := lease.Stamp(a.l.cfg.Clock)
	qc := a.queueCell()
	a.sends.note(qc.Timestamp, sent)
	if err := a.l.store.Put(ctx, a.l.cfg.table, a.id, qc); err != nil {
		return err
	}
	if !a.try {
		a.keepPlace(sent)
	}
	return nil
}

// keepPlace starts renewing our queue cell, written at sent, while we wait.
func (a *attempt) keepPlace(sent int64) {
	if a.l.wake != nil {
		a.l.wake.register(a.qcol, a.id)
	}
	a.wait = a.l.leases.Start(a.l.cfg.Lease, sent, func(ctx context.Context) error {
		qc := a.queueCell()
		a.sends.note(qc.Timestamp, lease.Stamp(a.l.cfg.Clock))
		return a.l.store.Put(ctx, a.l.cfg.table, a.id, qc)
	}, lease.Hooks{})
}

// dequeue stops renewing and deletes our queue (and any owner) cell, best
// effort: what it cannot delete expires.
func (a *attempt) dequeue(ctx context.Context) {
	if a.wait != nil {
		a.wait.Stop()
		a.wait = nil
	}
	if a.l.wake != nil && a.qcol != "" {
		a.l.wake.unregister(a.qcol)
	}
	cols := append([]string(nil), a.stale...)
	if a.queued {
		cols = append(cols, a.qcol)
	}
	if a.claimed {
		cols = append(cols, a.ocol)
	}
	if a.handed || a.l.cfg.handoff && a.queued {
		// A handed cell naming us, or one a releaser may still write: its
		// timestamp is one of our queue cell's, below this tombstone's, so
		// it can never outlive our leaving (section 4.12).
		cols = append(cols, layout.HandedColumn(a.owner))
	}
	a.queued, a.claimed = false, false
	if len(cols) == 0 {
		return
	}
	a.requests++
	del := a.l.ts.Next()
	a.sends.forgetBelow(del)
	if err := a.l.remove(context.WithoutCancel(ctx), a.id, del, cols...); err != nil {
		// A cell left behind may stand first in line until it expires, so
		// the next dequeue of this attempt tries again (a held lock's
		// Unlock too); what is never deleted expires after the TTL.
		a.stale = cols
		a.l.cfg.Logger.Warn("queuelock: could not delete cells; will retry, else they expire after the TTL",
			slog.String("id", a.id), slog.String("owner", a.owner), slog.Any("err", err))
		return
	}
	a.stale = nil
}

// retryStale deletes cells of ours left behind by a failed dequeue, which
// may stand in front of our current place until they expire.
func (a *attempt) retryStale(ctx context.Context) {
	if len(a.stale) == 0 {
		return
	}
	a.requests++
	del := a.l.ts.Next()
	if slices.Contains(a.stale, layout.HandedColumn(a.owner)) {
		// This tombstone of our handed column is above every queue-cell
		// write of ours so far, those of our new place included: a handed
		// cell naming one is dead from here on (queueSends).
		a.sends.forgetBelow(del)
	}
	if err := a.l.remove(context.WithoutCancel(ctx), a.id, del, a.stale...); err == nil {
		a.stale = nil
	}
}

// inTime reports whether a claim whose write was sent at since completed
// soon enough to count: the lease starts at since (internal/lease), so a
// claim that took the lease window or more would begin its hold already lost.
func (a *attempt) inTime(since int64) bool {
	return a.l.cfg.Lease.InTime(a.l.cfg.Clock, since)
}

// withdraw deletes our owner cell after a claim that did not win.
func (a *attempt) withdraw(ctx context.Context) error {
	a.requests++
	a.lastDeleteTS = a.l.ts.Next()
	cols := []string{a.ocol}
	if a.handed {
		// The tombstone, above every timestamp a handoff naming us has
		// carried so far, kills any handed cell naming those writes: a
		// grant or a handoff naming one (late, or from a releaser whose
		// claim read an older write) must not be taken (queueSends).
		a.sends.forgetBelow(a.lastDeleteTS)
		cols = append(cols, layout.HandedColumn(a.owner))
	}
	if err := a.l.remove(ctx, a.id, a.lastDeleteTS, cols...); err != nil {
		return err
	}
	a.claimed, a.handed = false, false
	return nil
}

// abandon undoes a failed attempt: cells deleted, turn passed on.
func (a *attempt) abandon(ctx context.Context) {
	a.dequeue(ctx)
	if a.turn {
		a.l.turns.Leave(a.id, a.slot)
		a.turn = false
	}
}
