package clock

import (
	"context"
	"fmt"
	"time"
)

// ahead is the block of values a Global drew ahead of use
// (Global.ReserveAhead): next up to end are still to be handed out, and
// sent is when (elapsed µs) the read of the draw that reserved them was
// sent.
type ahead struct {
	next, end int64
	sent      int64
}

// ReserveAhead is Reserve of n values for the caller, with extra more
// values drawn in the same block after them and kept for TakeAhead. It
// returns the first of the caller's n. Drawn counts the caller's n once the
// draw returns, and the extra values only as TakeAhead hands them out, so a
// Locker recording evidence never records the values still ahead.
//
// The kept values replace those of an earlier draw ahead whose read was
// sent before this one's. extra below 0 or n below 1 is refused and
// nothing is sent.
func (g *Global) ReserveAhead(ctx context.Context, n, extra int) (int64, error) {
	if extra < 0 {
		return 0, fmt.Errorf("clock: reserve %d global time values ahead: want at least 0", extra)
	}
	if n < 1 {
		return 0, fmt.Errorf("clock: reserve %d global time values: want at least 1", n)
	}
	sent := g.local.Elapsed()
	t, err := g.reserve(ctx, n+extra, int64(n))
	if err != nil || extra == 0 {
		return t, err
	}
	g.mu.Lock()
	if g.ahead.end == 0 || sent >= g.ahead.sent {
		g.ahead = ahead{next: t + int64(n), end: t + int64(n+extra) - 1, sent: sent}
	}
	g.mu.Unlock()
	return t, nil
}

// TakeAhead hands out n consecutive values drawn ahead (ReserveAhead) and
// returns the first, with how long ago, on this Global's clock, the read of
// the draw that reserved them was sent: every draw, on any process, that
// returned before then is below them (Lemma 7); no later one is sure to be.
// A caller
// timing a lease on another clock subtracts age from a stamp of its own
// taken before this call, which puts the send no later than it was. ok is
// false, and nothing is handed out, when fewer than n values are left, when
// age would be maxAge or more, or when the values left are not above Drawn
// (a later draw of this Global passed them). From now on Drawn counts the
// values handed out.
//
// A lock that keeps such a value as its token must check, as for a value
// drawn beside its claim, that it is above the evidence its winning read
// returned, and, besides its own lease, that the read was answered less
// than a lease window after that send (docs/algorithms.md, section 5.3).
func (g *Global) TakeAhead(n int, maxAge time.Duration) (first int64, age time.Duration, ok bool) {
	if n < 1 {
		return 0, 0, false
	}
	now := g.local.Elapsed()
	g.mu.Lock()
	defer g.mu.Unlock()
	a := g.ahead
	last := a.next + int64(n) - 1
	age = time.Duration(now-a.sent) * time.Microsecond
	if a.end == 0 || age >= maxAge || last > a.end || a.next <= g.done {
		return 0, 0, false
	}
	g.ahead.next = last + 1
	g.done = max(g.done, last)
	return a.next, age, true
}
