package manager

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/bugs"
)

// Plan validates reqs and returns the members an acquisition of them takes,
// in canonical order:
//   - with a separator, each request's ancestors in the request's
//     Intention() ("a/b/c" in S adds "a" and "a/b" in IS);
//   - each id once, in the lockstep.Join of every access asked of it (S and
//     IX on one id become SIX);
//   - ids ascending bytewise. An ancestor is a proper prefix of its
//     descendant, and a proper prefix sorts before every extension of it,
//     so ancestors come first: the hierarchy is locked top-down.
//
// An empty group, an invalid id (lockstep.ValidateID, or an empty path
// segment under a separator) or an invalid access returns an error wrapping
// lockstep.ErrInvalidID or lockstep.ErrInvalidAccess that says what to fix.
// Plan changes nothing, whatever it returns; reqs is not modified.
func (m *Manager) Plan(reqs []lockstep.Request) ([]lockstep.Request, error) {
	if len(reqs) == 0 {
		return nil, fmt.Errorf("%w: an empty lock group: pass at least one Request", lockstep.ErrInvalidID)
	}
	for i, r := range reqs {
		if err := m.validate(r); err != nil {
			return nil, fmt.Errorf("lockstep: request %d of %d: %w", i+1, len(reqs), err)
		}
	}
	unordered := bugs.Planted(bugs.GroupUnordered)
	var plan []lockstep.Request
	at := map[string]int{} // id → index in plan
	add := func(id string, a lockstep.Access) {
		if i, ok := at[id]; ok {
			plan[i].Access = lockstep.Join(plan[i].Access, a)
			return
		}
		at[id] = len(plan)
		plan = append(plan, lockstep.Request{ID: id, Access: a})
	}
	for _, r := range reqs {
		if !unordered {
			// Ancestors first, though the sort below would put them there
			// anyway: the order of additions does not matter to Join.
			for _, anc := range m.ancestors(r.ID) {
				add(anc, r.Access.Intention())
			}
			add(r.ID, r.Access)
			continue
		}
		// Planted defect: the request, then its ancestors, deepest first,
		// and no sort: the caller's order.
		add(r.ID, r.Access)
		anc := m.ancestors(r.ID)
		for i := len(anc) - 1; i >= 0; i-- {
			add(anc[i], r.Access.Intention())
		}
	}
	if !unordered {
		slices.SortFunc(plan, func(a, b lockstep.Request) int { return strings.Compare(a.ID, b.ID) })
	}
	return plan, nil
}

// validate checks one request's access and id.
func (m *Manager) validate(r lockstep.Request) error {
	if !r.Access.Valid() {
		return fmt.Errorf("%w: %v for id %q: use lockstep.Exclusive, Shared, IntentShared, IntentExclusive or SharedIntentExclusive",
			lockstep.ErrInvalidAccess, r.Access, r.ID)
	}
	if err := lockstep.ValidateID(r.ID); err != nil {
		return fmt.Errorf("id %q: %w", r.ID, err)
	}
	if m.sep == "" {
		return nil
	}
	for i, seg := range strings.Split(r.ID, m.sep) {
		if seg == "" {
			return fmt.Errorf("%w: %q has an empty path segment (number %d): with separator %q an id is non-empty "+
				"segments joined by it, so that each ancestor is an id of its own; drop the leading, trailing or "+
				"doubled %q, or use a Locker without a separator for flat ids",
				lockstep.ErrInvalidID, r.ID, i+1, m.sep, m.sep)
		}
	}
	return nil
}

// ancestors returns the proper ancestors of id, root first: "a" and "a/b"
// for "a/b/c" with separator "/"; none without a separator or under the
// planted defect SkipIntention.
func (m *Manager) ancestors(id string) []string {
	if m.sep == "" || bugs.Planted(bugs.SkipIntention) {
		return nil
	}
	var out []string
	for off := 0; ; {
		i := strings.Index(id[off:], m.sep)
		if i < 0 {
			return out
		}
		out = append(out, id[:off+i])
		off += i + len(m.sep)
	}
}
