package combine

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/held"
)

// takeBoth takes the queue half and then the legacy half of one try, the
// legacy half's first round overlapped with the queue half's winning claim
// (docs/algorithms.md, section 6.1): the queue part notes its claims, and
// a goroutine of this package prepares the legacy rounds beside them
// (beside.go). On error it holds nothing, except that
// a queue half held when the legacy half failed is returned with the error
// (q.Part set), for the caller to give up. A nil q.Part means nothing is
// held.
func (l *Locker) takeBoth(ctx context.Context, req held.Request) (q, g held.Result, err error) {
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	legacy := func() (held.Result, error) { return l.legacy.Acquire(lctx, req) }
	qreq := req
	b := startBeside(lctx, req, l.legacy.Prepare, l.clock)
	qreq.Claims = b.claims
	q, err = l.queue.Acquire(ctx, qreq)
	p := b.End(err == nil)
	if err != nil {
		return held.Result{}, held.Result{}, err
	}
	if p != nil {
		legacy = p.Go
	}
	g, err = l.takeLegacy(ctx, lctx, cancel, req, q.Part, legacy)
	return q, g, err
}
