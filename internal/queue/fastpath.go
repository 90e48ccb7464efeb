package queue

import (
	"context"
	"sync"

	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// The uncontended fast path (docs/algorithms.md, section 4.10, refinement 7). The documents' Lock takes
// six or seven sequential round trips when nobody else wants the lock:
// enqueue, read, write the owner cell, read, release — plus floor upkeep.
// Queue and owner cells share one partition, so one request can write both
// and one read can check both:
//
//	1. put   our queue cell and our owner cell (one single-partition batch)
//	2. read  from the floor: our queue cell first in line and our owner cell
//	         the only one → held
//	3. delete both cells on Unlock
//
// A stale cached floor is re-read in parallel with step 1, so it adds no
// sequential round trip.
//
// Safety does not change: success is still lemma 1's — we wrote our owner
// cell, then read the owner cells and ours was the only one, within the lease window of
// sending it — so mutual exclusion does not depend on the queue. The queue
// check only keeps the path fair: an arrival that is not first in line
// withdraws its owner cell and waits in line behind the head, keeping the
// queue cell it wrote in step 1 (its place).
//
// What it can cost others: while an arrival's owner cell exists (from step 1
// until it withdraws), the queue head's own claim may read it and fail, and
// retry a poll later. A process's arrivals are bounded by its turns (one
// remote contender per process and id, so a process in line makes no new
// arrival), but a process whose Lock calls are cancelled one after another
// would arrive again and again. So an id on which this process saw
// contention — a fast claim that did not win — takes the slow path, which
// writes an owner cell only when first in line, until the process next holds
// it uncontended or a TTL passes; an acquisition that saw others in line
// behind it keeps the hint for another TTL, since its process's next Lock
// will most likely find the lock busy again. The model checks drive an
// arrival storm against a waiting head to show the head still acquires
// (propertytests).

// hints remembers, per lock id, until when (µs, elapsed time) this process
// takes the slow path because it saw the id contended. An entry whose time
// has come means nothing any more, so the sweeps drop it (idstate.go).
type hints struct {
	mu     sync.Mutex
	m      map[string]int64
	growth growth // for the amortized sweep (idstate.go)
}

// fastPathOK reports whether a Lock of id may try the fast path now.
func (l *Locker) fastPathOK(id string) bool {
	if l.cfg.noFast {
		return false
	}
	now := l.cfg.Clock.Elapsed()
	l.hints.mu.Lock()
	defer l.hints.mu.Unlock()
	until, ok := l.hints.m[id]
	if !ok {
		return true
	}
	if now >= until {
		delete(l.hints.m, id)
		return true
	}
	return false
}

// contended makes Locks of id take the slow path for a TTL.
func (l *Locker) contended(id string) {
	now := l.cfg.Clock.Elapsed()
	l.hints.mu.Lock()
	if l.hints.m == nil {
		l.hints.m = make(map[string]int64)
	}
	_, existed := l.hints.m[id]
	l.hints.m[id] = now + l.cfg.Lease.TTL.Microseconds()
	if !existed && l.hints.growth.inserted(len(l.hints.m)) && !l.cfg.knobs.KeepIDState {
		l.sweepHintsLocked(now)
	}
	l.hints.mu.Unlock()
	if !existed {
		l.remembered()
	}
}

// clear forgets what was seen of id: this process holds it, and no one was
// in line behind it.
func (h *hints) clear(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, id)
}

// fastClaim is steps 1 and 2. ok means held; otherwise, with a nil error,
// our owner cell is withdrawn and our queue cell stands, renewed, as our
// place in line. since is when the claim's write was sent.
func (a *attempt) fastClaim(ctx context.Context) (ok bool, since int64, err error) {
	l := a.l
	a.time = l.hlc.Now()
	a.qcol, a.ocol = layout.QueueColumn(a.time, a.owner), l.column(a.access, a.slot)
	a.queued, a.claimed = true, true // even a failed write may have landed
	a.claims++

	var floorErr chan error
	if l.floorStale(a.id) {
		floorErr = make(chan error, 1)
		lifecycle.Go(l.cfg.Clock, func() {
			var n int
			_, err := l.floor(ctx, a.id, &n)
			floorErr <- err
		})
		a.requests++
	}
	a.requests++
	settled := a.claimStarts()
	defer func() { settled(ok && err == nil) }()
	since = lease.Stamp(l.cfg.Clock)
	ev := a.claimEvidence()
	a.drawBeside(ctx, since)
	defer a.dropEarly(&ok, &err)
	qc := a.queueCell()
	a.sends.note(qc.Timestamp, since)
	err = l.putClaim(ctx, a.id, append(ev, qc, a.ownerCell())...)
	if floorErr != nil {
		if ferr := <-floorErr; err == nil {
			err = ferr
		}
	}
	if err != nil {
		return false, 0, err
	}
	a.keepPlace(since)
	v, err := a.read(ctx)
	if err != nil {
		return false, 0, err
	}
	a.evidence = v.evidence
	a.l.noteEvidence(a.id, v.evidence, a.drawnBefore)
	if a.claimWon(v, since, true) {
		return true, since, nil
	}
	l.contended(a.id)
	if err := a.withdraw(ctx); err != nil {
		return false, 0, err
	}
	return false, 0, nil
}
