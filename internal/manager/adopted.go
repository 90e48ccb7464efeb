package manager

import "github.com/lockstep-go/lockstep"

// Adopted wraps locks, one per request of plan and in its order, that a
// Locker's Adopt took over from another process (lockstep.Sharer), into a
// group Lock like the one the giver held: same ID, same Members, one Lost
// and one Unlock. It takes no turn in the registry: an adopted group
// belongs to no reentrancy holder of this process.
func (m *Manager) Adopted(id string, plan []lockstep.Request, locks []lockstep.Lock) lockstep.Lock {
	members := make([]*member, len(locks))
	for i, l := range locks {
		members[i] = &member{access: plan[i].Access, handle: locks[0].Owner()}
		members[i].setReal(l)
	}
	return newLock(m, id, append([]lockstep.Request(nil), plan...), members, nil, false)
}
