package manager

import (
	"maps"
	"slices"
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
)

// member is one id a group holds: the Lock One returned for it. Without
// reentrancy a member belongs to one group; for a unit of work (Who.Holder)
// it is the registry entry of (holder, id), shared by every group of that
// holder that asked for the id, and counted.
type member struct {
	access lockstep.Access // what was asked, and what reentrancy counts as held (Covers)
	// took, when stronger is set, is the access real was really taken in,
	// stronger than access: its Locker said so (Step.Take; the legacy
	// lock's exclusive for a Shared request). heldIn is what deadlock
	// records list.
	took     lockstep.Access
	stronger bool
	real     lockstep.Lock // nil while pending
	key      *regKey       // the registry entry's key; nil when unregistered
	// handle is the Owner() of the handle (the group Lock) whose
	// acquisition took the member: its first member's owner. Deadlock
	// records name a holding by it (lockstep.DeadlockMember.HeldBy), so
	// that a caller can match a cycle's member to the Lock it holds. Set
	// before the member is shared, never changed.
	handle string

	// Guarded by Manager.mu, for registered members only.
	count int           // groups holding a reference
	ready chan struct{} // closed once real is set or the acquisition failed

	// The loss fan-out: a member whose real lock has a *held.Loss forwards
	// it, with no goroutine, to the Loss of every group holding it.
	hasLoss bool
	lmu     sync.Mutex
	fired   bool
	subs    map[*held.Loss]struct{}
}

// heldIn returns the access real holds in the store: the one its Locker
// took it in (Step.Take), or else the one asked.
func (mb *member) heldIn() lockstep.Access {
	if mb.stronger {
		return mb.took
	}
	return mb.access
}

// takenIn records that real was taken in a, if that is not the access
// asked. Before the member is shared: by its Run, before Done returns or
// settleReentrant publishes it.
func (mb *member) takenIn(a lockstep.Access) {
	if a != mb.access {
		mb.took, mb.stronger = a, true
	}
}

// handleOwner returns the Owner() of the handle that took mb.
func (mb *member) handleOwner() string {
	if mb.handle != "" {
		return mb.handle
	}
	return mb.real.Owner()
}

// lossOf returns l's *held.Loss, if it has one.
func lossOf(l lockstep.Lock) *held.Loss {
	if h, ok := l.(interface{ Loss() *held.Loss }); ok {
		return h.Loss()
	}
	return nil
}

// setReal records the member's lock and, if it has a *held.Loss, forwards
// that loss to the member's subscribers from now on.
func (mb *member) setReal(l lockstep.Lock) {
	mb.real = l
	if hl := lossOf(l); hl != nil {
		mb.hasLoss = true
		hl.OnFire(mb.fire)
	}
}

// fire fires every subscriber, and any later one at once.
func (mb *member) fire() {
	mb.lmu.Lock()
	mb.fired = true
	subs := slices.Collect(maps.Keys(mb.subs))
	mb.lmu.Unlock()
	for _, s := range subs {
		s.Fire()
	}
}

// subscribe makes the member's loss fire l (at once, if it has fired).
// Only for members with hasLoss.
func (mb *member) subscribe(l *held.Loss) {
	mb.lmu.Lock()
	if mb.fired {
		mb.lmu.Unlock()
		l.Fire()
		return
	}
	if mb.subs == nil {
		mb.subs = map[*held.Loss]struct{}{}
	}
	mb.subs[l] = struct{}{}
	mb.lmu.Unlock()
}

// unsubscribe stops forwarding to l: a group's first Unlock calls it, so a
// member held for long by one holder does not accumulate its groups.
func (mb *member) unsubscribe(l *held.Loss) {
	mb.lmu.Lock()
	delete(mb.subs, l)
	mb.lmu.Unlock()
}

// lostNow reports, without blocking, whether the member's lease is lost,
// running its own deadline checks (its Lost does).
func (mb *member) lostNow() bool {
	select {
	case <-mb.real.Lost():
		return true
	default:
		return false
	}
}
