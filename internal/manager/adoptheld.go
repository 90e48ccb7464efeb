package manager

import (
	"fmt"

	"github.com/lockstep-go/lockstep"
)

// AdoptedFor is Adopted for an Adopt of a unit of work (Unit.Adopt): the
// group joins holder as if the
// holder had taken it. Each member is registered as the holder's (a later
// acquisition of the id by the holder is counted, or refused with
// lockstep.ErrUpgrade, with no store request), and the group is one of the
// holder's handles for UnlockAll. plan may be a flat lock's one request.
// An id the holder already holds or is taking returns an error wrapping
// lockstep.ErrLocked and registers nothing: the caller gives the locks
// back.
func (m *Manager) AdoptedFor(holder any, id string, plan []lockstep.Request, locks []lockstep.Lock) (lockstep.Lock, error) {
	ready := make(chan struct{})
	close(ready)
	members := make([]*member, len(locks))
	m.mu.Lock()
	for _, r := range plan {
		if m.reg[regKey{holder: holder, id: r.ID}] != nil {
			m.mu.Unlock()
			return nil, fmt.Errorf("%w: adopt %q: the reentrancy holder already holds or is taking %q: adopt under another holder, or release it first",
				lockstep.ErrLocked, id, r.ID)
		}
	}
	for i, l := range locks {
		key := regKey{holder: holder, id: plan[i].ID}
		mb := &member{access: plan[i].Access, key: &key, ready: ready, count: 1, handle: locks[0].Owner()}
		mb.setReal(l)
		m.reg[key] = mb
		members[i] = mb
	}
	m.mu.Unlock()
	for i, l := range locks {
		// As takeReentrant does: a lock stopped other than by its groups
		// (the Locker's Close) leaves the registry.
		if s, ok := l.(interface{ AddOnStop(func()) }); ok {
			mb := members[i]
			s.AddOnStop(func() { m.forget(mb) })
		}
	}
	return newLock(m, id, append([]lockstep.Request(nil), plan...), members, holder, false), nil
}
