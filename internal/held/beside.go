package held

import (
	"context"
	"sync"
)

// Beside is a part taken beside another part's claims: a composing Locker
// (package combined) runs the legacy half's first round beside each claim
// of the queue half (docs/algorithms.md, section 6.1), so that the two
// halves' requests overlap. The queue part calls Claiming as each claim's
// write is about to be sent; Claiming starts the legacy half through its
// Source's Prepare itself, so the queue part never calls its composer.
// One prepared acquisition runs at a time: the one of a claim that lost is
// aborted and waited for before the next claim's starts, so a process
// never has two shadow cells of its own in the row. Safe for concurrent
// use; a nil *Beside starts nothing.
type Beside struct {
	ctx     context.Context
	req     Request
	prepare func(ctx context.Context, r Request) Prepared

	mu      sync.Mutex
	cur     Prepared // started beside the current claim
	aborted Prepared // of a claim that lost: aborted, maybe not ended yet
}

// NewBeside returns a Beside that starts prepare(ctx, req) (a legacy
// Source's Prepare) beside each claim.
func NewBeside(ctx context.Context, prepare func(ctx context.Context, r Request) Prepared, req Request) *Beside {
	return &Beside{ctx: ctx, req: req, prepare: prepare}
}

// Claiming is called by a part as each of its claims' writes is about to
// be sent; it returns the function to call once that claim's outcome is
// known (won: the claim holds the lock).
func (b *Beside) Claiming() (settled func(won bool)) {
	if b == nil {
		return func(bool) {}
	}
	b.mu.Lock()
	cur, aborted := b.cur, b.aborted
	b.cur, b.aborted = nil, nil
	b.mu.Unlock()
	if cur != nil { // a won claim the part gave up after all (a token draw)
		cur.Abort()
		cur.Wait()
	}
	if aborted != nil {
		aborted.Wait()
	}
	p := b.prepare(b.ctx, b.req)
	b.mu.Lock()
	b.cur = p
	b.mu.Unlock()
	return func(won bool) {
		if won {
			return
		}
		p.Abort()
		b.mu.Lock()
		if b.cur == p {
			b.cur, b.aborted = nil, p
		}
		b.mu.Unlock()
	}
}

// End is called when the part whose claims this ran beside returned: it
// waits for an aborted acquisition to end, and returns the one to go on
// with if that part is held (ok), aborting it (and waiting) otherwise.
func (b *Beside) End(ok bool) Prepared {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	cur, aborted := b.cur, b.aborted
	b.cur, b.aborted = nil, nil
	b.mu.Unlock()
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
