package managertest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/lockstep-go/lockstep"
)

// memTable is an in-process lock manager: the suite's reference, to check
// the suite itself before (and besides) the module's Lockers, and, broken on
// purpose, to prove the scenarios catch what they are for
// (suite_test.go). It is not a Locker of the module: no store, no lease.
type memTable struct {
	mu      sync.Mutex
	grants  map[string][]*memGrant
	changed chan struct{}      // closed and replaced on every release
	handles map[any][]*memLock // each reentrancy holder's groups (UnlockAll)
	// broken plants a defect: "no-intention" takes no locks on ancestors,
	// "shared-ignores-writers" lets Shared in beside Exclusive.
	broken string
}

type memGrant struct {
	access lockstep.Access
	count  int // acquisitions it serves (reentrancy)
	holder any
}

func newMemTable(broken string) *memTable {
	return &memTable{grants: map[string][]*memGrant{}, changed: make(chan struct{}), handles: map[any][]*memLock{}, broken: broken}
}

func (m *memTable) compatible(a, b lockstep.Access) bool {
	if m.broken == "shared-ignores-writers" && (a == lockstep.Shared || b == lockstep.Shared) {
		return true
	}
	return a.Compatible(b)
}

// memLocker is one "process" on a memTable.
type memLocker struct {
	m   *memTable
	sep string
}

// members expands reqs into the canonical group: ancestors in their
// intention access, each id once in the Join of what it was asked in,
// ids ascending.
func (l *memLocker) members(reqs []lockstep.Request) ([]lockstep.Request, error) {
	if len(reqs) == 0 {
		return nil, fmt.Errorf("%w: an empty group", lockstep.ErrInvalidID)
	}
	acc := map[string]lockstep.Access{}
	add := func(id string, a lockstep.Access) {
		if old, ok := acc[id]; ok {
			a = lockstep.Join(old, a)
		}
		acc[id] = a
	}
	for _, r := range reqs {
		if r.ID == "" || !r.Access.Valid() {
			return nil, fmt.Errorf("%w: %v", lockstep.ErrInvalidID, r)
		}
		if l.sep != "" && r.Flags&lockstep.Flat != 0 && strings.Contains(strings.TrimSuffix(r.ID, l.sep+"*"), l.sep) {
			if l.m.broken == "flat-paths" {
				add(r.ID, r.Access) // one name: no intention locks
				continue
			}
			return nil, fmt.Errorf("%w: %v: a flat id holds the separator", lockstep.ErrInvalidID, r)
		}
		if p, ok := strings.CutSuffix(r.ID, l.sep+"*"); ok && l.sep != "" && p != "" {
			if r.Flags&lockstep.NoMask != 0 {
				return nil, fmt.Errorf("%w: %v: a mask declared no mask", lockstep.ErrInvalidID, r)
			}
			if r.Access != lockstep.Shared && r.Access != lockstep.Exclusive && l.m.broken != "mask-intention" {
				return nil, fmt.Errorf("%w: mask %v: a mask may be taken only Shared or Exclusive", lockstep.ErrInvalidID, r)
			}
			r.ID = p // a mask: every child of p, taken as p
		}
		add(r.ID, r.Access)
		if l.sep == "" || l.m.broken == "no-intention" {
			continue
		}
		parts := strings.Split(r.ID, l.sep)
		for i := 1; i < len(parts); i++ {
			add(strings.Join(parts[:i], l.sep), r.Access.Intention())
		}
	}
	out := make([]lockstep.Request, 0, len(acc))
	for id, a := range acc {
		out = append(out, lockstep.Request{ID: id, Access: a})
	}
	slices.SortFunc(out, func(a, b lockstep.Request) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// take grants every member at once or none, waiting unless try.
func (l *memLocker) take(ctx context.Context, holder any, try bool, reqs []lockstep.Request) (lockstep.Lock, error) {
	ms, err := l.members(reqs)
	if err != nil {
		return nil, err
	}
	reentrant := holder != nil
	m := l.m
	for {
		m.mu.Lock()
		var (
			taken   []*memGrant
			ids     []string
			blocked bool
		)
		for _, r := range ms {
			if reentrant {
				if g := m.find(r.ID, holder); g != nil {
					if !g.access.Covers(r.Access) {
						m.mu.Unlock()
						return nil, fmt.Errorf("%w: %v held as %v", lockstep.ErrUpgrade, r, g.access)
					}
					continue
				}
			}
			for _, g := range m.grants[r.ID] {
				blocked = blocked || !m.compatible(g.access, r.Access)
			}
		}
		if !blocked {
			counted := true
			for _, r := range ms {
				g := (*memGrant)(nil)
				if reentrant {
					g = m.find(r.ID, holder)
				}
				if g == nil {
					counted = false
					g = &memGrant{access: r.Access, holder: holder}
					m.grants[r.ID] = append(m.grants[r.ID], g)
				}
				g.count++
				taken, ids = append(taken, g), append(ids, r.ID)
			}
			h := &memLock{m: m, ids: ids, grants: taken, lost: make(chan struct{}), counted: reentrant && counted && m.broken != "reentrant-unreported"}
			if reentrant {
				m.handles[holder] = append(m.handles[holder], h)
			}
			m.mu.Unlock()
			return h, nil
		}
		changed := m.changed
		m.mu.Unlock()
		if try {
			return nil, fmt.Errorf("%w: %v", lockstep.ErrLocked, reqs)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %v: %w", reqs, ctx.Err())
		}
	}
}

func (m *memTable) find(id string, holder any) *memGrant {
	for _, g := range m.grants[id] {
		if g.holder != nil && g.holder == holder {
			return g
		}
	}
	return nil
}

func (l *memLocker) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.take(ctx, nil, false, []lockstep.Request{{ID: id}})
}

func (l *memLocker) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.take(ctx, nil, true, []lockstep.Request{{ID: id}})
}

func (l *memLocker) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.take(ctx, nil, false, reqs)
}

func (l *memLocker) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.take(ctx, nil, true, reqs)
}

func (l *memLocker) Close(context.Context) error { return nil }

// memUnit is a unit of work of a memLocker.
type memUnit struct {
	l  *memLocker
	id *struct{ _ byte }
}

func (l *memLocker) Unit(string) lockstep.Unit { return memUnit{l, &struct{ _ byte }{}} }

func (u memUnit) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return u.l.take(ctx, u.id, false, []lockstep.Request{{ID: id}})
}

func (u memUnit) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return u.l.take(ctx, u.id, true, []lockstep.Request{{ID: id}})
}

func (u memUnit) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return u.l.take(ctx, u.id, false, reqs)
}

func (u memUnit) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return u.l.take(ctx, u.id, true, reqs)
}

func (u memUnit) UnlockAll(ctx context.Context) error { return u.l.UnlockAll(ctx, u.id) }
func (u memUnit) Commented(string) lockstep.Unit      { return u }

// UnlockAll unlocks every group taken under holder.
func (l *memLocker) UnlockAll(ctx context.Context, holder any) error {
	if holder == nil {
		return fmt.Errorf("%w: a nil holder", lockstep.ErrInvalidConfig)
	}
	l.m.mu.Lock()
	hs := l.m.handles[holder]
	delete(l.m.handles, holder)
	l.m.mu.Unlock()
	for _, h := range hs {
		_ = h.Unlock(ctx)
	}
	return nil
}

// memLock is a held group.
type memLock struct {
	m        *memTable
	ids      []string
	grants   []*memGrant
	lost     chan struct{}
	counted  bool // every member was the holder's already (Reentrant)
	released bool
}

func (h *memLock) Reentrant() bool { return h.counted }

func (h *memLock) ID() string            { return strings.Join(h.ids, ", ") }
func (h *memLock) Owner() string         { return fmt.Sprintf("%p", h) }
func (h *memLock) Mode() lockstep.Mode   { return lockstep.ModeNew }
func (h *memLock) Lost() <-chan struct{} { return h.lost }
func (h *memLock) Unlock(context.Context) error {
	m := h.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if h.released {
		return nil
	}
	h.released = true
	for i, g := range h.grants {
		if g.count--; g.count == 0 {
			m.grants[h.ids[i]] = slices.DeleteFunc(m.grants[h.ids[i]], func(x *memGrant) bool { return x == g })
		}
	}
	close(m.changed)
	m.changed = make(chan struct{})
	return nil
}
