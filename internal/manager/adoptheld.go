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
//
// A nil lock in locks is a member the holder already holds (HeldFor said
// so, and the Locker adopted nothing for it): it is counted, as a Lock of
// the holder counts it, and shared with the groups that hold it. Sibling
// groups handed over one by one (rx/1 and rx/2, both holding the
// intention lock on rx) are so joined again: the second counts rx.
//
// An id the holder already holds or is taking for a lock that is not nil,
// or a nil lock for an id the holder no longer holds in a covering access,
// returns an error (wrapping lockstep.ErrLocked or lockstep.ErrReleased)
// and registers and counts nothing: the caller gives the locks back.
func (m *Manager) AdoptedFor(holder any, id string, plan []lockstep.Request, locks []lockstep.Lock) (lockstep.Lock, error) {
	ready := make(chan struct{})
	close(ready)
	members := make([]*member, len(locks))
	m.mu.Lock()
	for i, r := range plan {
		mb := m.reg[regKey{holder: holder, id: r.ID}]
		switch {
		case locks[i] != nil && mb != nil:
			m.mu.Unlock()
			return nil, fmt.Errorf("%w: adopt %q: the reentrancy holder already holds or is taking %q: adopt under another holder, or release it first",
				lockstep.ErrLocked, id, r.ID)
		case locks[i] == nil && (mb == nil || mb.real == nil || !mb.access.Covers(r.Access)):
			m.mu.Unlock()
			return nil, fmt.Errorf("%w: adopt %q: the reentrancy holder no longer holds %q, which the token shares with a lock it holds: adopt the token again",
				lockstep.ErrReleased, id, r.ID)
		}
	}
	owner := ""
	for i, l := range locks {
		key := regKey{holder: holder, id: plan[i].ID}
		if l == nil {
			mb := m.reg[key]
			mb.count++
			members[i] = mb
			continue
		}
		if owner == "" {
			owner = l.Owner()
		}
		mb := &member{access: plan[i].Access, key: &key, ready: ready, count: 1, handle: owner}
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
	return newLock(m, id, append([]lockstep.Request(nil), plan...), members, holder, owner == ""), nil
}

// HeldFor reports whether holder holds id, in an access covering a, by a
// lock of owner (its Owner()) whose lease is not lost: then an Adopt under
// holder of a token naming that member of the same acquisition adopts
// nothing for it, and AdoptedFor counts it.
func (m *Manager) HeldFor(holder any, id string, a lockstep.Access, owner string) bool {
	m.mu.Lock()
	mb := m.reg[regKey{holder: holder, id: id}]
	held := mb != nil && mb.real != nil && mb.access.Covers(a)
	m.mu.Unlock()
	// real, once set, never changes.
	return held && mb.real.Owner() == owner && !mb.lostNow()
}
