package manager

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// Acquire takes the members of m.Plan(reqs) one by one, in that order,
// through One (with try: TryLock's semantics for each), and returns them as
// one Lock. On any error — ctx ending, a busy member under try, a store
// error, an upgrade under reentrancy — it releases what it took, last taken
// first, with context.WithoutCancel(ctx) so that the cleanup runs after a
// cancellation, and returns an error naming the member that stopped it and
// wrapping the cause (errors.Is sees ctx.Err(), lockstep.ErrLocked,
// lockstep.ErrUpgrade, ...), joined with any release error. A release that
// fails is left to the Locker's Close and the cells' TTL. A member lost
// while the members after it were taken fails the call the same way, with
// an error wrapping lockstep.ErrLost: a group is returned only whole
// (doc.go, "Losing a member").
//
// Under lockstep.WithReentrancy(ctx, holder), a member the holder already
// holds in an access that Covers the request is counted, with no store
// request; one it holds in a weaker access fails the call with an error
// wrapping lockstep.ErrUpgrade.
func (m *Manager) Acquire(ctx context.Context, reqs []lockstep.Request, try bool) (lockstep.Lock, error) {
	plan, err := m.Plan(reqs)
	if err != nil {
		return nil, err
	}
	holder, reentrant := lockstep.ReentrancyHolder(ctx)
	if reentrant && !reflect.ValueOf(holder).Comparable() { // the value: an interface field may hold a slice
		return nil, fmt.Errorf("%w: reentrancy holder of type %T is not comparable (it is, or holds, a slice, map or function): pass a pointer, a string or a number",
			lockstep.ErrInvalidConfig, holder)
	}
	members := make([]*member, 0, len(plan))
	w := waiter{identity: holder, reentrant: reentrant, try: try}
	if !reentrant {
		w.identity = &call{}
		w.taken = func() []*member { return members }
	}
	for i, r := range plan {
		var mb *member
		if reentrant {
			mb, err = m.takeReentrant(ctx, w, r)
		} else {
			mb, err = m.take(ctx, w, r)
		}
		if err != nil {
			err = fmt.Errorf("lockstep: lock group [%s]: member %d of %d, %s, not taken (%d taken before it released): %w",
				joinRequests(plan), i+1, len(plan), r, len(members), err)
			return nil, errors.Join(err, m.abandon(context.WithoutCancel(ctx), members))
		}
		members = append(members, mb)
	}
	if i := firstLost(members); i >= 0 && !m.knobs.GroupReturnsLostMember {
		err := fmt.Errorf("lockstep: lock group [%s]: member %d of %d, %s, was lost while the members after it were taken "+
			"(its lease lapsed: the store or the network stalled its renewals); the group released what it took, so nothing is held: take the group again: %w",
			joinRequests(plan), i+1, len(plan), plan[i], lockstep.ErrLost)
		return nil, errors.Join(err, m.abandon(context.WithoutCancel(ctx), members))
	}
	if !reentrant {
		holder = nil
	}
	return newLock(m, callerID(reqs), plan, members, holder), nil
}

// firstLost returns the index of the first member whose lease is lost, or
// -1. A group is held only while every member is (doc.go, "Losing a
// member"): one whose member lapsed before the group was complete is never
// returned, so a returned group's Lost() is open and each member's fencing
// token comes from a lease still running when the group was returned.
func firstLost(members []*member) int {
	for i, mb := range members {
		if mb.lostNow() {
			return i
		}
	}
	return -1
}

// take acquires r for one group, outside any registry.
func (m *Manager) take(ctx context.Context, w waiter, r lockstep.Request) (*member, error) {
	l, err := m.wait(ctx, w, r)
	if err != nil {
		return nil, err
	}
	mb := &member{access: r.Access}
	mb.setReal(l)
	return mb, nil
}

// takeReentrant acquires r for holder: it counts a covering acquisition
// the holder already has, refuses a weaker one (ErrUpgrade), and otherwise
// takes the id through One and registers it. A second acquisition by the
// same holder while the first is still waiting for the id waits for its
// outcome, as it would in the id's queue.
func (m *Manager) takeReentrant(ctx context.Context, w waiter, r lockstep.Request) (*member, error) {
	holder, try := w.identity, w.try
	key := regKey{holder: holder, id: r.ID}
	for {
		m.mu.Lock()
		mb := m.reg[key]
		if mb == nil {
			break // m.mu still held
		}
		if mb.real == nil { // pending: another call of this holder is taking it
			ready := mb.ready
			m.mu.Unlock()
			if try {
				return nil, fmt.Errorf("%w: this holder's own acquisition of %q is still waiting", lockstep.ErrLocked, r.ID)
			}
			select {
			case <-ready:
				lifecycle.Resumed(ctx, m.clock)
				continue
			case <-ctx.Done():
				lifecycle.Resumed(ctx, m.clock)
				return nil, ctx.Err()
			}
		}
		if !mb.access.Covers(r.Access) {
			held := mb.access
			m.mu.Unlock()
			return nil, fmt.Errorf("%w: the holder holds %q in %v, which does not cover %v: "+
				"release it first, or take the stronger access first", lockstep.ErrUpgrade, r.ID, held, r.Access)
		}
		mb.count++
		m.mu.Unlock()
		return mb, nil
	}
	mb := &member{access: r.Access, key: &key, ready: make(chan struct{})}
	m.reg[key] = mb
	m.mu.Unlock()

	l, err := m.wait(ctx, w, r)
	if err == nil {
		// A lock released other than by its groups (the Locker's Close
		// releases every lock it holds) must not be counted again: its
		// cells are gone and another process may hold the id. Its first
		// Unlock takes the entry out of the registry. (Outside m.mu: the
		// hook runs under the lock's own mutex, and at once if stopped.)
		if s, ok := l.(interface{ AddOnStop(func()) }); ok {
			s.AddOnStop(func() { m.forget(mb) })
		}
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	defer close(mb.ready)
	if err != nil {
		delete(m.reg, key)
		return nil, err
	}
	mb.setReal(l)
	mb.count = 1
	return mb, nil
}

// drop gives up one group's reference to mb and reports whether that was
// the last, so the caller must now Unlock mb.real. A last reference takes
// the registry entry away first: a later acquisition by the holder takes
// the id afresh (and waits, like anyone, if this release is slow).
func (m *Manager) drop(mb *member) (last bool) {
	if mb.key == nil {
		return true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	mb.count--
	if mb.count > 0 {
		return false
	}
	if m.reg[*mb.key] == mb { // not if forget took it out and the holder took the id afresh
		delete(m.reg, *mb.key)
	}
	return true
}

// forget takes mb out of the registry, if it is still there: its lock was
// stopped (unlocked, by its last group or by the Locker's Close), so a later
// acquisition by the holder takes the id afresh.
func (m *Manager) forget(mb *member) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.reg[*mb.key] == mb {
		delete(m.reg, *mb.key)
	}
}

// abandon releases the members a failed Acquire took, last taken first.
func (m *Manager) abandon(ctx context.Context, members []*member) error {
	var errs []error
	for i := len(members) - 1; i >= 0; i-- {
		if m.drop(members[i]) {
			if err := m.unlockMember(ctx, members[i]); err != nil {
				errs = append(errs, fmt.Errorf("lockstep: releasing %q after the failed group: %w", members[i].real.ID(), err))
			}
		}
	}
	return errors.Join(errs...)
}

// callerID is the group Lock's ID: the ids the caller asked for, in its
// order, joined by ", " (for one request, exactly its id).
func callerID(reqs []lockstep.Request) string {
	ids := make([]string, len(reqs))
	for i, r := range reqs {
		ids[i] = r.ID
	}
	return strings.Join(ids, ", ")
}

// joinRequests renders a plan for error messages: "a:IX, a/b:X".
func joinRequests(reqs []lockstep.Request) string {
	s := make([]string, len(reqs))
	for i, r := range reqs {
		s[i] = r.String()
	}
	return strings.Join(s, ", ")
}
