package queue

import (
	"context"
	"slices"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lease"
)

// Reads independent of the crowd. A waiter's read decides nothing about
// safety (lemma 1 is the claim's read), and fairness needs only that every
// waiter reads within a bound (floor.go: at least once per SlowPoll ≤ TTL/2,
// far inside the floor cell's life of 2×TTL + Poll). So how often a waiter
// reads may follow how soon it can be next:
//
//   - next in line (position 1; the head, position 0, is the holder or
//     about to claim): every Poll/4 — its read is the handoff's latency
//     (reading less before the holder's expected release was tried, and
//     lengthened handoffs by up to 20% on the seed scenario: an interval
//     observed through sparse reads runs long); with wake-ups on, every
//     Poll, the fallback for a wake-up that is lost or that no releaser
//     knew to send;
//   - further back, at position k: the k−1 acquisitions in front of it take
//     at least about k−1 handoff intervals (the interval it observed
//     between moves up the line), so it waits half that long (the
//     observed interval over-estimates after a long sleep), at least Poll and
//     at most SlowPoll; with wake-ups on it waits SlowPoll, since the
//     releaser whose claim saw it next wakes it.
//
// Positions count handoffs (view.turns): readers or intention locks that
// hold at the head of the line at once count as one, so a writer right
// behind them is next in line, though no releaser's claim may have seen it
// to wake it.
//
// A waiter thus reads O(1) times while it moves up the line, however long
// the line, instead of once per Poll: the store's load follows the rate of
// acquisitions, not the number of waiters.

// pacer keeps one attempt's observation of how fast the line moves.
type pacer struct {
	pos      int   // position at the last move seen, -1 before the first read
	at       int64 // elapsed µs when pos was first seen
	interval int64 // estimated µs per move up the line, 0 if unknown
}

// observe notes our position in a read made at elapsed time now.
func (p *pacer) observe(pos int, now int64) {
	switch {
	case p.pos < 0 || pos > p.pos: // first read, or pushed back (a re-enqueue, a skewed name)
		p.pos, p.at = pos, now
	case pos < p.pos:
		// Quick to fall, slow to rise: a stall of the line (a long hold,
		// a paused process) must not make a waiter sleep past its turn
		// afterwards, when nobody else can take the lock for it.
		sample := (now - p.at) / int64(p.pos-pos)
		if p.interval == 0 || sample < p.interval {
			p.interval = sample
		} else {
			p.interval += (sample - p.interval) / 8
		}
		p.pos, p.at = pos, now
	}
}

// position returns col's index in line, or -1.
func (v view) position(col string) int {
	for i, e := range v.queue {
		if e.Column == col {
			return i
		}
	}
	return -1
}

// turns returns col's place in line counted in handoffs, for pacing: the
// head of the line is the longest prefix of entries each compatible with
// every one before it (with accesses, several holders at once; for
// Exclusive, the first entry alone), and counts as one, so a waiter right
// behind holders that share is next in line (1), as a waiter right behind
// an exclusive holder is. -1 if col is not in line.
//
// Holders that gave their queue cells up (part.renew) still head the line:
// they count in front of every queue cell, as their queue cells did.
func (v view) turns(col string) int {
	pos := v.position(col)
	if pos < 0 {
		return -1
	}
	line := v.queue
	if h := v.shedHolders(); len(h) > 0 {
		line = append(h, v.queue...)
		pos += len(h)
	}
	if pos <= 1 {
		return pos
	}
	head := 1
	for head < pos && compatibleBefore(line, head) {
		head++
	}
	return pos - head + 1
}

// shedHolders returns, once per owner id, the owner cells of v whose
// acquisitions have no queue cell in v: holders that gave theirs up with
// their first renewal. (An owner's handed cell and own cell, or the cells
// of a shared owner's holders, are one holder.)
func (v view) shedHolders() []layout.Entry {
	var out []layout.Entry
	for _, o := range v.owners {
		same := func(e layout.Entry) bool { return e.Owner == o.Owner }
		if !slices.ContainsFunc(v.queue, same) && !slices.ContainsFunc(out, same) {
			out = append(out, o)
		}
	}
	return out
}

// compatibleBefore reports whether line[i] is compatible with every entry
// in front of it.
func compatibleBefore(line []layout.Entry, i int) bool {
	for _, e := range line[:i] {
		if !line[i].Access.Compatible(e.Access) {
			return false
		}
	}
	return true
}

// after returns the queue entry right behind col: the waiter who is next in
// line once col's acquisition holds. The line is in column order, so the
// answer is the same whether or not col's own cell is in v: a granted
// holder's read of the line (handoff.go) may come after its first renewal
// gave that cell up (part.renew).
func (v view) after(col string) layout.Entry {
	for _, e := range v.queue {
		if e.Column > col {
			return e
		}
	}
	return layout.Entry{}
}

// successor returns the waiter the acquisition owner in access a, whose
// queue cell is col, wakes, or hands the lock to, when it releases. For an
// exclusive one it is the first queue entry of another owner: the head of
// the line (a cell of ours a failed delete left behind is no waiter).
// A claim that won in exclusive access saw nobody in front (clearAhead), so
// that is the waiter right behind col; a hold made by a handoff may have a
// waiter in front, one whose cell its releaser's read did not show, and
// naming the one behind instead would pass that waiter again at every
// handoff of a chain. For the other accesses it is after(col).
func (v view) successor(col, owner string, a lockstep.Access) layout.Entry {
	if a != lockstep.Exclusive {
		return v.after(col)
	}
	for _, e := range v.queue {
		if e.Column != col && e.Owner != owner {
			return e
		}
	}
	return layout.Entry{}
}

// pause waits after a read v that did not let us claim, as long as our
// position allows (above), or until a wake-up.
func (a *attempt) pause(ctx context.Context, v view) error {
	l := a.l
	pos, now := v.turns(a.qcol), l.cfg.Clock.Elapsed()
	a.pace.observe(pos, now)
	// Rely on wake-ups only while they arrive (wakehealth.go), and next in
	// line only when the holder's claim saw us (a.expect).
	relied := l.wake != nil && l.wakeHealth.reliedOn()
	wait := l.cfg.poll
	switch {
	case pos <= 1 && !(relied && a.expect):
		wait = l.nextPoll()
	case pos <= 1:
		// a wake-up is due: the poll is only the fallback
	case relied:
		wait = l.cfg.slow
	case a.pace.interval > 0:
		// Half the estimate: the sample over-estimates when we slept
		// past moves (pace.observe), and sleeping past our turn costs a
		// handoff, while reading early costs one read.
		est := time.Duration(a.pace.interval*int64(pos-1)/2) * time.Microsecond
		wait = min(l.cfg.slowPlain, max(l.cfg.poll, est))
	}
	if a.knobs.WakeOnly && l.wake != nil {
		wait = 24 * time.Hour // planted: rely on wake-ups alone
	}
	return a.sleep(ctx, wait)
}

// sleep waits d, or with wake-ups on until a wake-up for our queue cell.
func (a *attempt) sleep(ctx context.Context, d time.Duration) error {
	if a.l.wake == nil || !a.queued {
		return a.l.cfg.Clock.Sleep(ctx, d)
	}
	woken, err := a.l.wake.sleep(ctx, a.qcol, d, a.l.nextPoll())
	a.woken = woken
	return err
}

// grabOnWake is the planted WakeGrants defect: write the owner cell and hold
// on a wake-up alone, skipping the claim's read (lemma 1's check).
func (a *attempt) grabOnWake(ctx context.Context) (since int64, err error) {
	a.claims++
	a.claimed = true
	a.requests++
	since = lease.Stamp(a.l.cfg.Clock)
	if err := a.l.putClaim(ctx, a.id, append(a.claimEvidence(), a.queueCell(), a.ownerCell())...); err != nil {
		return 0, err
	}
	return since, nil
}

// onWake claims at once after a wake-up, without a read first: the claim's
// own read decides (first in line and alone in the owner cells, lemma 1),
// so a wake-up that is forged, late or meant for another moment costs a
// claim that withdraws, and a handoff costs release, claim write and claim
// read: three round trips. nil, nil: not held, look again.
func (a *attempt) onWake(ctx context.Context, retry func(error) error) (*part, error) {
	if a.knobs.WakeGrants {
		// Planted: a wake-up taken for a grant, the claim's read skipped.
		since, err := a.grabOnWake(ctx)
		if err != nil {
			return nil, nil
		}
		return a.keep(ctx, since, retry)
	}
	if ts, grant := a.l.wake.takeHanded(a.qcol); ts != 0 {
		if grant {
			if h, err, done := a.holdGranted(ctx, ts, retry); done {
				return h, err
			}
		}
		if h, err, done := a.confirmHandoff(ctx, ts, retry); done {
			return h, err
		}
	}
	ok, since, err := a.claim(ctx, true)
	if err != nil {
		return nil, retry(err)
	}
	if !ok {
		return nil, nil
	}
	return a.keep(ctx, since, retry)
}
