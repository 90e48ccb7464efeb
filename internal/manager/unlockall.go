package manager

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/lockstep-go/lockstep"
)

// UnlockAll releases every lock holder's acquisitions through this Manager
// still hold (seed 003's unlockAll: everything of the current identifier):
// it unlocks each group Lock returned for holder (Who.Holder: a Unit's)
// and not yet released, as its Unlock does, so a later Unlock of
// one returns nil. An acquisition of holder still in progress is not
// waited for: a Lock it returns afterwards is held. A lock whose release
// failed stays the holder's, and a later UnlockAll (or its own Unlock)
// retries it; a lock whose lease was lost is released and reported with
// lockstep.ErrLost, as its Unlock reports it. A nil holder returns an
// error wrapping lockstep.ErrInvalidConfig.
func (m *Manager) UnlockAll(ctx context.Context, holder any) error {
	if holder == nil {
		return fmt.Errorf("%w: UnlockAll of a nil holder: pass a unit of work's", lockstep.ErrInvalidConfig)
	}
	m.mu.Lock()
	gs := slices.Collect(maps.Keys(m.handles[holder]))
	m.mu.Unlock()
	var errs []error
	for _, g := range gs {
		errs = append(errs, g.Unlock(ctx)) // errors.Join drops the nils
	}
	return errors.Join(errs...)
}

// track records g as one of its holder's unreleased handles.
func (m *Manager) track(g *Lock) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.handles[g.holder]
	if s == nil {
		s = map[*Lock]struct{}{}
		m.handles[g.holder] = s
	}
	s[g] = struct{}{}
}

// untrack forgets g, released.
func (m *Manager) untrack(g *Lock) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.handles[g.holder], g)
	if len(m.handles[g.holder]) == 0 {
		delete(m.handles, g.holder)
	}
}
