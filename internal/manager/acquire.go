package manager

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

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

// enterReentrant is the registry's part of holder w's request r before any
// take: a covering acquisition the holder already has is counted and
// returned (mb); a weaker one is refused (ErrUpgrade); one whose lease was
// lost is refused with a *lostHolding (it stays the holder's until the
// Lock that took it is unlocked: lostheld.go); otherwise r is
// registered as pending, for the Locker to take, and returned (pending),
// to be settled by settleReentrant. A second acquisition by the same
// holder while the first is still waiting for the id waits for its
// outcome, as it would in the id's queue.
func (m *Manager) enterReentrant(ctx context.Context, w waiter, r lockstep.Request) (mb, pending *member, err error) {
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
				return nil, nil, fmt.Errorf("%w: this holder's own acquisition of %q is still waiting", lockstep.ErrLocked, r.ID)
			}
			select {
			case <-ready:
				lifecycle.Resumed(ctx, m.clock)
				continue
			case <-ctx.Done():
				lifecycle.Resumed(ctx, m.clock)
				return nil, nil, ctx.Err()
			}
		}
		if !mb.access.Covers(r.Access) {
			held := mb.access
			m.mu.Unlock()
			return nil, nil, fmt.Errorf("%w: the holder holds %q in %v, which does not cover %v: "+
				"release it first, or take the stronger access first", lockstep.ErrUpgrade, r.ID, held, r.Access)
		}
		// Whether its lease is lost is checked outside m.mu: Lost runs the
		// lock's own deadline checks, under its own mutex.
		m.mu.Unlock()
		if mb.lostNow() {
			return nil, nil, &lostHolding{id: r.ID, owner: mb.handleOwner()}
		}
		m.mu.Lock()
		if m.reg[key] != mb { // released meanwhile: look again
			m.mu.Unlock()
			continue
		}
		mb.count++
		m.mu.Unlock()
		return mb, nil, nil
	}
	pending = &member{access: r.Access, key: &key, ready: make(chan struct{})}
	m.reg[key] = pending
	m.mu.Unlock()
	return nil, pending, nil
}

// settleReentrant records the outcome of the Locker's take of a pending
// registry entry mb (enterReentrant): on success the entry holds l, counted
// once; on error it is deleted. Either way the holder's other calls
// waiting for it go on.
func (m *Manager) settleReentrant(mb *member, l lockstep.Lock, err error) (*member, error) {
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
		delete(m.reg, *mb.key)
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

// abandon releases the members a failed Run took, last taken first.
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
