package manager

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lockstep-go/lockstep"
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
	unordered := m.knobs.GroupUnordered
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
		if m.knobs.FlatPaths && m.sep != "" && m.flatPath(r) {
			// Planted defect: a flat request naming a path taken as one
			// name, without its ancestors' intention locks.
			add(r.ID, r.Access)
			continue
		}
		id := m.unmask(r.ID)
		if !unordered {
			// Ancestors first, though the sort below would put them there
			// anyway: the order of additions does not matter to Join.
			for _, anc := range m.ancestors(id) {
				add(anc, r.Access.Intention())
			}
			add(id, r.Access)
			continue
		}
		// Planted defect: the request, then its ancestors, deepest first,
		// and no sort: the caller's order.
		add(id, r.Access)
		anc := m.ancestors(id)
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
	if !r.Flags.Valid() {
		return fmt.Errorf("%w: %v for id %q: use lockstep.Flat, lockstep.NoMask, both or neither",
			lockstep.ErrInvalidID, r.Flags, r.ID)
	}
	if m.sep == "" {
		return nil
	}
	if err := m.checkFlags(r); err != nil {
		return err
	}
	segs := strings.Split(r.ID, m.sep)
	if len(segs) > 1 && segs[len(segs)-1] == Mask && !maskAccess(r.Access) && !m.knobs.MaskIntention {
		return fmt.Errorf("%w: mask %q asked in %v: a mask may be taken only Shared or Exclusive. It is held as its "+
			"parent %q in the mask's access, and an intention access there does not exclude the children the mask "+
			"names (a child's holder takes only an intention lock on the parent); ask for the mask in lockstep.Shared "+
			"or lockstep.Exclusive, or for the parent %q itself in %v",
			lockstep.ErrInvalidID, r.ID, r.Access, m.unmask(r.ID), m.unmask(r.ID), r.Access)
	}
	for i, seg := range segs {
		if seg == Mask && (i != len(segs)-1 || i == 0) {
			where := "before other segments"
			if len(segs) == 1 {
				where = "alone"
			}
			return fmt.Errorf("%w: %q has the mask segment %q %s: a mask names every child of the id before it, "+
				"so it may only be the last segment, after at least one other (\"a%s%s\")",
				lockstep.ErrInvalidID, r.ID, Mask, where, m.sep, Mask)
		}
		if seg == "" {
			return fmt.Errorf("%w: %q has an empty path segment (number %d): with separator %q an id is non-empty "+
				"segments joined by it, so that each ancestor is an id of its own; drop the leading, trailing or "+
				"doubled %q, or use a Locker without a separator for flat ids",
				lockstep.ErrInvalidID, r.ID, i+1, m.sep, m.sep)
		}
		if !m.overlaps {
			continue
		}
		if p := edgeOverlap(seg, m.sep); p != "" {
			return fmt.Errorf("%w: %q has a path segment %q that begins or ends with %q, a part of the separator %q, "+
				"which can overlap itself: the id could then be read as the child of more than one parent "+
				"(\"x:\" + \"::\" + \"y\" is \"x:::y\", read as a child of \"x\"), so a lock on one would not exclude the other; "+
				"rename the segment, or use a separator that cannot overlap itself (such as \"/\")",
				lockstep.ErrInvalidID, r.ID, seg, p, m.sep)
		}
	}
	return nil
}

// checkFlags refuses a request whose flags disagree with the Locker's
// reading of its id (lockstep.Flags): a Flat one naming a path, a NoMask
// one naming a mask. Every request the Locker accepts is then planned
// under that one reading (docs/algorithms.md, section 8.9).
func (m *Manager) checkFlags(r lockstep.Request) error {
	if m.flatPath(r) && !m.knobs.FlatPaths {
		return fmt.Errorf("%w: %q is declared lockstep.Flat but holds the separator %q, so this Locker reads it as a "+
			"path and locks its ancestors too, as it does for every request of that id: drop lockstep.Flat to lock "+
			"it as a path, or choose a name without %q",
			lockstep.ErrInvalidID, r.ID, m.sep, m.sep)
	}
	if r.Flags&lockstep.NoMask != 0 && m.unmask(r.ID) != r.ID {
		return fmt.Errorf("%w: %q is declared lockstep.NoMask but ends in the mask segment %q, which names every "+
			"child of %q: drop lockstep.NoMask to lock them all, or choose a name without it",
			lockstep.ErrInvalidID, r.ID, Mask, m.unmask(r.ID))
	}
	return nil
}

// flatPath reports whether r is declared lockstep.Flat but has ancestors:
// the id it takes (its mask's parent, or itself) holds the separator. A
// mask of one name ("orders/*") has none, and is as flat as "orders".
func (m *Manager) flatPath(r lockstep.Request) bool {
	return r.Flags&lockstep.Flat != 0 && strings.Contains(m.unmask(r.ID), m.sep)
}

// Mask is the last path segment of a mask request (seed 003's MASK flag):
// under a separator, "a/b/*" names every child of "a/b", present or future,
// and is taken as a request of "a/b" itself in the same access, which
// covers every descendant (docs/algorithms.md, section 8.6).
const Mask = "*"

// maskAccess reports whether a mask may be taken in a: Shared or
// Exclusive, the accesses whose lock on the parent conflicts with the
// intention lock every incompatible child's holder takes there (section
// 8.6). A mask in IS, IX or SIX would be held as its parent in that
// intention access, which a child's holder in X (or S, for IX and SIX)
// does not conflict with.
func maskAccess(a lockstep.Access) bool {
	return a == lockstep.Shared || a == lockstep.Exclusive
}

// unmask returns the id a request of id takes: the parent of a mask, or id.
func (m *Manager) unmask(id string) string {
	if m.sep == "" {
		return id
	}
	if p, ok := strings.CutSuffix(id, m.sep+Mask); ok && p != "" {
		return p
	}
	return id
}

// selfOverlaps reports whether two occurrences of sep can overlap: some
// proper non-empty prefix of sep is also its suffix ("::", "aba"). Only
// then can an id split into path segments in more than one way.
func selfOverlaps(sep string) bool {
	for k := 1; k < len(sep); k++ {
		if sep[:k] == sep[len(sep)-k:] {
			return true
		}
	}
	return false
}

// edgeOverlap returns the part of sep that seg begins with (a proper
// suffix of sep) or ends with (a proper prefix), or "" if none: an
// occurrence of a self-overlapping sep could then straddle the segment's
// edge, and the id would have a second reading.
func edgeOverlap(seg, sep string) string {
	for k := len(sep) - 1; k >= 1; k-- {
		if strings.HasPrefix(seg, sep[len(sep)-k:]) {
			return sep[len(sep)-k:]
		}
		if strings.HasSuffix(seg, sep[:k]) {
			return sep[:k]
		}
	}
	return ""
}

// ancestors returns the proper ancestors of id, root first: "a" and "a/b"
// for "a/b/c" with separator "/"; none without a separator or under the
// planted defect SkipIntention.
func (m *Manager) ancestors(id string) []string {
	if m.sep == "" || m.knobs.SkipIntention {
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
