package manager

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/deadlock"
)

// waiter is who a Run waits as, for deadlock detection
// (docs/algorithms.md, section 8.5): the reentrancy holder, or, without
// one, the call itself, which then holds only the members it took.
type waiter struct {
	identity  any
	reentrant bool
	try       bool
	taken     func() []*member // without a holder: the call's members so far
}

// call is the identity of a Run without a reentrancy holder: a
// pointer no other call shares.
type call struct{ _ byte }

// holds returns what w holds now: with a holder, every member the registry
// shows granted to it; without, the members its call took. Each is listed
// in the access its Locker really took it in (member.heldIn), which a
// holding taken in an earlier mode of a migration keeps, and by the Owner()
// of the handle that took it (member.handle).
func (m *Manager) holds(w waiter) []deadlock.Hold {
	var out []deadlock.Hold
	add := func(mb *member) {
		out = append(out, deadlock.Hold{ID: mb.real.ID(), Access: mb.heldIn(), Owner: mb.handleOwner()})
	}
	if !w.reentrant {
		for _, mb := range w.taken() {
			add(mb)
		}
		return out
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, mb := range m.reg {
		if k.holder == w.identity && mb.real != nil {
			add(mb)
		}
	}
	return out
}

// unlockMember releases a member whose last reference was dropped. Under
// deadlock detection a holder's record that lists it is withdrawn first
// (rule R2): a visible record's holdings must still be held.
func (m *Manager) unlockMember(ctx context.Context, mb *member) error {
	if m.det != nil && mb.key != nil {
		m.det.Retract(ctx, mb.key.holder, mb.key.id)
	}
	return mb.real.Unlock(ctx)
}
