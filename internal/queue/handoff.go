package queue

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// The handoff (Options.Handoff; docs/algorithms.md, section
// 4.12, has the argument). A plain handoff takes three sequential round
// trips: the releaser's delete, the woken waiter's claim write, its claim
// read. With Handoff, an exclusive releaser whose winning claim's read (or,
// held by a grant, its read of the line) showed an exclusive waiter with a
// wake address at the head of the line (view.successor) ends its hold and
// writes that waiter's handed cell in one request (lockstep.Mutator), then
// wakes it with a wake-up that names the handed cell's timestamp. The
// waiter's lease counts from the send of the queue-cell write whose
// timestamp the handed cell carries: the releaser read that write before
// it sent the handoff, so the handed cell was written later and lives at
// least as long as the lease.
//
// If the releaser's lease was still open when that request was
// acknowledged, the wake-up is a grant: nobody else can have won the id
// before the acknowledgement (the releaser's cells were live until its
// handed cell replaced them, replica by replica), and nobody can win it
// after while the handed cell lives, so the waiter holds on the wake-up
// alone, if its lease has not lapsed meanwhile: one round trip and a
// datagram. Otherwise the waiter reads once and holds if that read shows
// the handed cell, with that timestamp, and no other conflicting owner cell
// (claimWon, the one rule). Anything else — no such wake-up, a handed cell
// found by a poll, a timestamp this attempt did not write — falls back to
// the ordinary claim, which counts a handed cell naming us as ours.

// maxSends bounds the queue-cell writes an attempt remembers: a releaser
// reads one of the latest few, and an older one would start a lease that
// has lapsed anyway.
const maxSends = 8

// queueSends remembers an attempt's recent queue-cell writes: timestamp →
// lease.Stamp of the send. Safe for concurrent use (the waiter's renewal
// runs on the lease scheduler).
type queueSends struct {
	mu sync.Mutex
	ts [maxSends]int64
	at [maxSends]int64
	n  int
	// floor: writes with a lower timestamp are forgotten, whenever noted.
	// A handed cell carrying one is dead under our tombstone of the handed
	// column (forgetBelow), so neither a grant nor a confirmation may
	// count it.
	floor int64
}

// forgetBelow forgets every write with a timestamp below ts, the
// timestamp of a tombstone of our handed column we are about to send
// (attempt.withdraw, attempt.dequeue, attempt.retryStale): a handed cell
// naming one of them can no longer be live, even where the handoff lands
// later.
func (q *queueSends) forgetBelow(ts int64) {
	q.mu.Lock()
	q.floor = max(q.floor, ts)
	q.mu.Unlock()
}

func (q *queueSends) note(ts, sent int64) {
	q.mu.Lock()
	i := q.n % maxSends
	q.ts[i], q.at[i] = ts, sent
	q.n++
	q.mu.Unlock()
}

// sentAt returns the send stamp of the queue-cell write with timestamp ts.
func (q *queueSends) sentAt(ts int64) (int64, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if ts < q.floor {
		return 0, false
	}
	for i := range min(q.n, maxSends) {
		if q.ts[i] == ts {
			return q.at[i], true
		}
	}
	return 0, false
}

// handoffFrom and grantFrom start the From of a handoff's wake-up: it
// names the handed cell's timestamp, and grantFrom says the releaser's lease
// was open when its handoff was acknowledged. A releaser's queue column
// never starts so; a Locker that predates handoffs ignores From, and one
// that predates grants claims after a grant as after any wake-up.
const (
	handoffFrom = "handoff/"
	grantFrom   = "grant/"
)

func handoffWakeFrom(ts int64, grant bool) string {
	if grant {
		return grantFrom + strconv.FormatInt(ts, 10)
	}
	return handoffFrom + strconv.FormatInt(ts, 10)
}

// parseHandoffFrom returns the handed cell's timestamp a wake-up's From
// names, or 0, and whether the wake-up is a grant.
func parseHandoffFrom(from string) (ts int64, grant bool) {
	s, ok := strings.CutPrefix(from, handoffFrom)
	if !ok {
		if s, ok = strings.CutPrefix(from, grantFrom); !ok {
			return 0, false
		}
		grant = true
	}
	ts, err := strconv.ParseInt(s, 10, 64)
	if err != nil || ts <= 0 {
		return 0, false
	}
	return ts, grant
}

// holdGranted is the woken waiter's grant (section 4.12): it holds without
// a read if the queue-cell write the handed cell names is one of this
// attempt's and the lease counted from its send is still open. done false:
// confirm by a read instead. The waiter behind us, whom our release wakes
// or hands the lock to, is learned by a read sent now, off Lock's path;
// Release waits for it (part.nextRead).
func (a *attempt) holdGranted(ctx context.Context, ts int64, retry func(error) error) (h *part, err error, done bool) {
	since, ok := a.sends.sentAt(ts)
	if !ok {
		return nil, nil, false
	}
	if a.knobs.HandoffFromRead {
		since = lease.Stamp(a.l.cfg.Clock) // planted: from the grant's arrival, after the handoff's write
	}
	if !a.inTime(since) {
		return nil, nil, false
	}
	a.claims++
	a.claimStarts()(true)
	a.claimed, a.handed, a.crowded = true, true, true
	a.next = layout.Entry{}
	line := a.readLine(ctx)
	h, err = a.keep(ctx, since, retry)
	if h != nil {
		h.nextRead = line
	}
	return h, err, true
}

// readLine reads the partition once, beside what follows, and sends the
// successor it shows (view.successor; none after an error) on the returned
// channel: what a claim's own read would have told us. A grant that keep
// then gives up leaves that answer unread in the buffered channel.
func (a *attempt) readLine(ctx context.Context) <-chan layout.Entry {
	l, id, qcol, owner, access, col := a.l, a.id, a.qcol, a.owner, a.access, a.l.column(a.access, a.slot)
	ctx = context.WithoutCancel(ctx)
	line := make(chan layout.Entry, 1)
	lifecycle.Go(l.cfg.Clock, func() {
		var requests int
		v, err := l.readAs(ctx, id, &requests, col)
		if err != nil {
			line <- layout.Entry{}
			return
		}
		line <- v.successor(qcol, owner, access)
	})
	return line
}

// confirmHandoff is the woken waiter's one read after a handoff's wake-up
// naming the handed cell written at ts (section 4.12). done false: not
// confirmed, claim as after any wake-up.
func (a *attempt) confirmHandoff(ctx context.Context, ts int64, retry func(error) error) (h *part, err error, done bool) {
	since, ok := a.sends.sentAt(ts)
	if !ok {
		return nil, nil, false
	}
	if a.knobs.HandoffFromRead {
		since = lease.Stamp(a.l.cfg.Clock) // planted: from our read, after the handoff's write
	}
	a.claims++
	settled := a.claimStarts()
	v, err := a.read(ctx)
	if err != nil {
		settled(false)
		return nil, retry(err), true
	}
	e, ok := v.handedTo(a.owner)
	if !ok || e.Timestamp != ts || !a.claimWon(v, since, false) {
		settled(false)
		return nil, nil, false
	}
	settled(true)
	a.claimed = true
	h, err = a.keep(ctx, since, retry)
	return h, err, true
}

// handoffTo returns the handed cell a release of p writes for its
// successor, or ok false for a plain release: Handoff on, wake-ups on, a
// store that writes and deletes in one request, this release holding the
// turn (a first Release), an exclusive hold whose lease is open, and an
// exclusive successor that published a wake address and a timestamp.
func (p *part) handoffTo(turn bool) (c lockstep.Cell, m lockstep.Mutator, ok bool) {
	l := p.l
	if !l.cfg.handoff || l.wake == nil || !turn || p.access != lockstep.Exclusive {
		return c, nil, false
	}
	n := p.next
	if n.Column == "" || n.Access != lockstep.Exclusive || n.Wake == "" || n.Timestamp <= 0 {
		return c, nil, false
	}
	if m, ok = l.mutator(); !ok || p.Lease == nil || p.Lease.IsLost() {
		return c, nil, false
	}
	return layout.OwnerCell(layout.HandedColumn(n.Owner), n.Owner, lockstep.Exclusive, n.Timestamp, l.cfg.Lease.TTL), m, true
}
