package queue

import (
	"context"
	"errors"
	"log/slog"

	"github.com/lockstep-go/lockstep/internal/fencing"
)

// held turns a successful claim, whose write was sent at since, into a
// part. With fencing on (a.fence) it first takes the token drawn beside the
// claim, if that may be kept (evidence.go), or else draws the token and
// keeps it only if the claim's lease was still open when it arrived
// (internal/fencing has the argument); otherwise it returns the error and
// the claim stands, for the caller to give up (keep, or abandon).
func (a *attempt) held(ctx context.Context, since int64) (*part, error) {
	if f := a.l.cfg.Fencing; f != nil && a.fence {
		t, ok := a.earlyToken(since)
		if !ok {
			a.requests += 2
			var err error
			d := fencing.Drawer{Global: f, Block: a.block, Knobs: a.l.cfg.knobs.Fencing}
			if t, err = d.Draw(ctx, func() bool { return a.inTime(since) }); err != nil {
				return nil, err
			}
		}
		a.token = t
	}
	if a.wait != nil {
		a.wait.Stop()
		a.wait = nil
	}
	if a.crowded {
		// Others were in line behind us: the next Lock of this id would
		// most likely arrive to a busy lock too.
		a.l.contended(a.id)
	} else {
		a.l.hints.clear(a.id)
	}
	p := newPart(a, since)
	a.turn = false // the part owns the turn now
	return p, nil
}

// keep is held for Lock: a claim whose token could not be kept (the draw
// failed, or the lease lapsed before the token arrived) is given up like a
// lost claim — our owner cell withdrawn, our place in line kept — and Lock
// looks again, after retry's pause for a failed draw (a store error like any
// other) or a poll for a lapse. A nil handle and error mean: look again.
func (a *attempt) keep(ctx context.Context, since int64, retry func(error) error) (*part, error) {
	h, err := a.held(ctx, since)
	if err == nil {
		return h, nil
	}
	if ctx.Err() != nil {
		return nil, a.ctxErr(ctx, err)
	}
	if werr := a.withdraw(ctx); werr != nil {
		return nil, retry(werr)
	}
	if !errors.Is(err, fencing.ErrLapsed) {
		return nil, retry(err)
	}
	a.l.cfg.Logger.Warn("queuelock: lease lapsed while drawing the fencing token; claiming again", slog.String("id", a.id))
	if err := a.l.cfg.Clock.Sleep(ctx, a.l.cfg.poll); err != nil {
		return nil, a.ctxErr(ctx, nil)
	}
	return nil, nil
}
