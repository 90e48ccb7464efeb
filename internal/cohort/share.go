package cohort

import (
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// Sharer is what an inner algorithm offers for sharing a lock whose
// members this layer granted (lockstep.Sharer's Share): its own Share, with
// holds mapping each such member to the inner part of the store hold its
// grant holds, which the inner algorithm shares in the member's place,
// under the member's ID and fencing token.
type Sharer interface {
	ShareHolds(lk lockstep.Lock, holds map[*held.Lock]held.Part) (string, error)
}

var _ manager.Sharer = (*Algorithm)(nil)

// Share returns a token naming lk, which this Locker returned and still
// holds, through the inner algorithm (Sharer). It sends no request. Each
// member granted by this layer is marked shared first, unless its Unlock
// has begun (refused with an error wrapping lockstep.ErrReleased): from
// then on its Unlock neither hands the store hold to the next in line nor
// retains it, but leaves the shared lock as a direct holder's Unlock does
// (docs/algorithms.md, section 4.15, "Sharing a grant"); the next in line
// takes the id from the store behind the sharers. If the inner Share
// refuses, the marks it added are taken back and nothing changes.
func (c *Algorithm) Share(lk lockstep.Lock) (string, error) {
	sh, ok := c.inner.(Sharer)
	if !ok {
		return "", fmt.Errorf("%w: this Locker cannot share its locks", lockstep.ErrIncompatibleMode)
	}
	members := []lockstep.Lock{lk}
	if g, ok := lk.(interface{ MemberLocks() []lockstep.Lock }); ok {
		members = g.MemberLocks()
	}
	holds := map[*held.Lock]held.Part{}
	var marked []*grant
	unmark := func() {
		for _, g := range marked {
			g.state.CompareAndSwap(shared, granted)
		}
	}
	for _, m := range members {
		g, h := c.grantOf(m)
		if g == nil {
			continue // not this layer's grant: the inner Share judges it
		}
		switch {
		case g.state.CompareAndSwap(granted, shared):
			marked = append(marked, g)
		case g.state.Load() == stopped:
			unmark()
			return "", fmt.Errorf("cohort: share %q: %w: it was unlocked (handed on, kept for this process or released): share a lock while it is held",
				m.ID(), lockstep.ErrReleased)
		}
		holds[h] = g.h.spec.Parts[0]
	}
	tok, err := sh.ShareHolds(lk, holds)
	if err != nil {
		unmark()
		return "", err
	}
	return tok, nil
}

// grantOf returns m's grant, if m is a lock this layer granted over a
// store hold of one inner part, with m's held lock.
func (c *Algorithm) grantOf(m lockstep.Lock) (*grant, *held.Lock) {
	h := held.Of(m)
	if h == nil || len(h.Parts()) != 1 {
		return nil, nil
	}
	g, ok := h.Parts()[0].(*grant)
	if !ok || g.c != c || len(g.h.spec.Parts) != 1 {
		return nil, nil
	}
	return g, h
}
