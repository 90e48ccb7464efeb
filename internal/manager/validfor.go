package manager

import (
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
)

var _ lockstep.Expiring = (*Lock)(nil)

// remaining is the member's source for its groups' Loss: the time left of
// its lock's own Loss, or, for a lock of another implementation (no
// *held.Loss), 0 once its Lost is closed and held.NoBound before.
func (mb *member) remaining() time.Duration {
	if hl := lossOf(mb.real); hl != nil {
		return hl.Remaining()
	}
	if mb.lostNow() {
		return 0
	}
	return held.NoBound
}

// ValidFor follows lockstep.Expiring: the least time left of the members,
// 0 once Lost is closed or Unlock has begun — and 0 if a member's lock is
// of an implementation that does not say how long it stays valid.
func (g *Lock) ValidFor() time.Duration {
	if g.ending.Load() {
		return 0
	}
	for _, mb := range g.members {
		if lossOf(mb.real) == nil {
			return 0
		}
	}
	if left := g.loss.Remaining(); left != held.NoBound {
		return left
	}
	return 0
}
