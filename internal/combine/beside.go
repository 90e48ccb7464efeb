package combine

import (
	"context"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// beside runs the legacy half's first round beside each claim of the queue
// half (docs/algorithms.md, section 6.1), on a goroutine of this package:
// the queue part only notes its claims (held.Claims), and this goroutine
// reads the notes and starts and aborts the legacy Source's prepared
// acquisitions itself, so nothing below combined calls an algorithm. One
// prepared acquisition runs at a time: the one of a claim that lost is
// aborted and waited for before the next claim's starts, so a process never
// has two shadow cells of its own in the row.
type beside struct {
	ctx     context.Context
	req     held.Request
	prepare func(ctx context.Context, r held.Request) held.Prepared
	claims  *held.Claims

	end    chan bool     // one value: the queue part returned, held or not
	done   chan struct{} // closed when run returned, result set
	result held.Prepared

	// Only run's goroutine touches these.
	cur      held.Prepared // started beside claim curClaim
	curClaim int
	aborted  held.Prepared // of a claim that lost: aborted, maybe not ended yet
}

// startBeside starts the goroutine (on clk) that prepares the legacy half
// of req (with ctx, by prepare: the legacy core's Prepare) beside the
// claims noted on the returned beside's claims.
func startBeside(ctx context.Context, req held.Request, prepare func(context.Context, held.Request) held.Prepared, clk lockstep.Clock) *beside {
	b := &beside{ctx: ctx, req: req, prepare: prepare, claims: held.NewClaims(),
		end: make(chan bool, 1), done: make(chan struct{})}
	lifecycle.Go(clk, b.run)
	return b
}

// run follows the notes until End. It is started with lifecycle.Go, so a
// simulator names the goroutines it starts (the legacy rounds); after a
// wake-up it touches only its own fields, the notes (under their mutex)
// and the prepared acquisitions it owns, none of which another goroutine
// of the process orders itself by, so it needs no lifecycle.Resumed.
func (b *beside) run() {
	defer close(b.done)
	for {
		select {
		case <-b.claims.Noted():
			b.apply(b.claims.Notes())
		case ok := <-b.end:
			b.apply(b.claims.Notes()) // every note was made before End
			b.result = b.finish(ok)
			return
		}
	}
}

// apply acts on notes, in order.
func (b *beside) apply(notes []held.ClaimNote) {
	for _, n := range notes {
		switch {
		case !n.Settled:
			b.claiming(n.Claim)
		case !n.Won:
			b.lost(n.Claim)
		}
	}
}

// claiming starts the prepared acquisition of claim k, after the one of
// the claim before it ended.
func (b *beside) claiming(k int) {
	if b.cur != nil { // a won claim the part gave up after all (a token draw)
		b.cur.Abort()
		b.cur.Wait()
	}
	if b.aborted != nil {
		b.aborted.Wait()
	}
	b.cur, b.curClaim, b.aborted = b.prepare(b.ctx, b.req), k, nil
}

// lost aborts the prepared acquisition of claim k, which did not win; the
// next claim, or finish, waits for it to end.
func (b *beside) lost(k int) {
	if b.cur == nil || b.curClaim != k {
		return
	}
	b.cur.Abort()
	b.cur, b.aborted = nil, b.cur
}

// finish waits for an aborted acquisition to end, and returns the one to
// go on with if the queue part is held (ok), aborting it (and waiting)
// otherwise.
func (b *beside) finish(ok bool) held.Prepared {
	if b.aborted != nil {
		b.aborted.Wait()
		b.aborted = nil
	}
	if b.cur != nil && !ok {
		b.cur.Abort()
		b.cur.Wait()
		b.cur = nil
	}
	return b.cur
}

// End is called when the queue part whose claims this ran beside returned
// (ok: it is held): it ends the goroutine and returns the prepared
// acquisition to go on with, nil if none. A nil *beside returns nil.
func (b *beside) End(ok bool) held.Prepared {
	if b == nil {
		return nil
	}
	b.end <- ok
	<-b.done
	return b.result
}
