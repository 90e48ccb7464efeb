package combined

import (
	"context"
	"sync"

	"github.com/lockstep-go/lockstep/internal/held"
)

// takeBoth takes the queue half and then the legacy half of one try, the
// legacy half's first round overlapped with the queue half's winning claim
// (docs/algorithms.md, section 6.1). On error it holds nothing, except that
// a queue half held when the legacy half failed is returned with the error
// (q.Part set), for the caller to give up. A nil q.Part means nothing is
// held.
func (l *Locker) takeBoth(ctx context.Context, req held.Request) (q, g held.Result, err error) {
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	legacy := func() (held.Result, error) { return l.legacy.Acquire(lctx, req) }
	qreq := req
	var o overlap
	if l.legacy.Prepare != nil {
		o = overlap{prepare: func() held.Prepared { return l.legacy.Prepare(lctx, req) }}
		qreq.Claiming = o.claiming
	}
	q, err = l.queue.Acquire(ctx, qreq)
	p := o.end(err == nil)
	if err != nil {
		return held.Result{}, held.Result{}, err
	}
	if p != nil {
		legacy = p.Go
	}
	g, err = l.takeLegacy(ctx, lctx, cancel, req, q.Part, legacy)
	return q, g, err
}

// overlap keeps the legacy half's prepared acquisition (held.Prepared)
// started beside the queue half's current claim: one at a time, the one of
// a claim that lost aborted and waited for before the next claim's starts,
// so a process never has two shadow cells of its own in the row.
type overlap struct {
	prepare func() held.Prepared

	mu      sync.Mutex
	cur     held.Prepared // started beside the current claim
	aborted held.Prepared // of a claim that lost: aborted, maybe not ended yet
}

// claiming is held.Request.Claiming of the queue half.
func (o *overlap) claiming() func(won bool) {
	o.mu.Lock()
	cur, aborted := o.cur, o.aborted
	o.cur, o.aborted = nil, nil
	o.mu.Unlock()
	if cur != nil { // a won claim the queue half gave up after all (a token draw)
		cur.Abort()
		cur.Wait()
	}
	if aborted != nil {
		aborted.Wait()
	}
	p := o.prepare()
	o.mu.Lock()
	o.cur = p
	o.mu.Unlock()
	return func(won bool) {
		if won {
			return
		}
		p.Abort()
		o.mu.Lock()
		if o.cur == p {
			o.cur, o.aborted = nil, p
		}
		o.mu.Unlock()
	}
}

// end is called when the queue half's acquisition returned: it waits for an
// aborted acquisition to end, and returns the one to go on with if the
// queue half is held, aborting it (and waiting) otherwise.
func (o *overlap) end(ok bool) held.Prepared {
	o.mu.Lock()
	cur, aborted := o.cur, o.aborted
	o.cur, o.aborted = nil, nil
	o.mu.Unlock()
	if aborted != nil {
		aborted.Wait()
	}
	if cur != nil && !ok {
		cur.Abort()
		cur.Wait()
		return nil
	}
	return cur
}
