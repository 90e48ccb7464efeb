package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// Separator divides a hierarchical lock id into its path: "a/b" is a child
// of "a". The workers use it (migration.Options.Separator).
const Separator = "/"

// member is one request of a hold: a lock id in an access (X, S, IS, IX,
// SIX).
type member struct{ id, access string }

func (m member) String() string { return history.Member(m.id, m.access) }

// parseMembers returns the requests of an acquisition record: its Members,
// or one exclusive request of its Lock when it names none (a plain Lock).
func parseMembers(r history.Record) ([]member, error) {
	if len(r.Members) == 0 {
		return []member{{r.Lock, "X"}}, nil
	}
	out := make([]member, 0, len(r.Members))
	for _, s := range r.Members {
		id, acc, err := history.ParseMember(s)
		if err != nil {
			return nil, fmt.Errorf("check: acquisition of %s by %s at %d: %w", r.Lock, r.Process, r.ReturnNS, err)
		}
		out = append(out, member{id, acc})
	}
	return out, nil
}

// plain reports whether h is one exclusive request of its own lock id: the
// holds the leased-mutex model (mutex) and the bypass bound judge.
func (h *hold) plain() bool {
	return len(h.members) == 1 && h.members[0].id == h.lock && h.members[0].access == "X"
}

// compatibleAccess is the multi-granularity matrix (Gray et al., 1975),
// written here again rather than taken from the library under test: two
// acquisitions of one id may hold at once exactly for these pairs (either
// order).
var compatibleAccess = map[[2]string]bool{
	{"IS", "IS"}: true, {"IS", "IX"}: true, {"IS", "S"}: true, {"IS", "SIX"}: true,
	{"IX", "IX"}: true, {"S", "S"}: true,
}

func compatible(a, b string) bool {
	return compatibleAccess[[2]string{a, b}] || compatibleAccess[[2]string{b, a}]
}

// intention is what holding an id in access a implies on each of its
// ancestors: IS below a reader, IX below anything else.
func intention(a string) string {
	if a == "S" || a == "IS" {
		return "IS"
	}
	return "IX"
}

// isAncestor reports whether a is a proper ancestor of b.
func isAncestor(a, b string) bool { return strings.HasPrefix(b, a+Separator) }

// conflict says why holds of a and b may not be held at once by two
// processes, or "" when they may: one id in incompatible accesses, or an id
// held in an access incompatible with the intention a descendant's hold
// implies on it (X on "L" against anything on "L/a"; S on "L" against X on
// "L/a"). Ids that only share an ancestor never conflict: intentions are
// compatible with each other.
func conflict(a, b []member) string {
	for _, x := range a {
		for _, y := range b {
			switch {
			case x.id == y.id && !compatible(x.access, y.access):
				return fmt.Sprintf("%s against %s", x, y)
			case isAncestor(x.id, y.id) && !compatible(x.access, intention(y.access)):
				return fmt.Sprintf("%s against %s (which implies %s on %s)", x, y, intention(y.access), x.id)
			case isAncestor(y.id, x.id) && !compatible(y.access, intention(x.access)):
				return fmt.Sprintf("%s (which implies %s on %s) against %s", x, intention(x.access), y.id, y)
			}
		}
	}
	return ""
}

// related reports whether holds of a and b meet on some id: one id, an id
// and its ancestor, or two ids under one ancestor (where their intentions
// meet).
func related(a, b []member) bool {
	for _, x := range a {
		for _, y := range b {
			if root(x.id) == root(y.id) {
				return true
			}
		}
	}
	return false
}

// root is the first element of a hierarchical id.
func root(id string) string {
	if i := strings.Index(id, Separator); i >= 0 {
		return id[:i]
	}
	return id
}

// checkAccess judges holds by compatibility: two holds of different
// processes that certainly overlapped — each had returned from its Lock call
// before the other can have ended — must be compatible (conflict). Pairs of
// plain exclusive holds of one id are left to the mutex model, which judges
// them more finely. One violation is reported per conflicting pair; r.Shared
// counts the related pairs that overlapped compatibly (readers together,
// writers of siblings under one ancestor), the evidence that the run gave the
// check something to judge.
func checkAccess(hs []*hold, r *Report) []Violation {
	sorted := append([]*hold(nil), hs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].acquire.ReturnNS < sorted[j].acquire.ReturnNS })
	var out []Violation
	for i, a := range sorted {
		for _, b := range sorted[i+1:] {
			if b.acquire.ReturnNS >= a.endLB() {
				break // sorted by acquisition: later ones start later still
			}
			if a.process == b.process || b.acquire.ReturnNS >= b.endLB() {
				continue
			}
			if a.plain() && b.plain() && a.lock == b.lock {
				continue
			}
			why := conflict(a.members, b.members)
			if why == "" {
				if related(a.members, b.members) {
					r.Shared++
				}
				continue
			}
			out = append(out, Violation{Checker: "access", Lock: a.lock + " & " + b.lock, Detail: fmt.Sprintf(
				"%s (%s) held %v from %s until at least %s; %s (%s) held %v from %s until at least %s: %s",
				a.process, a.mode, a.members, sec(a.acquire.ReturnNS), sec(a.endLB()),
				b.process, b.mode, b.members, sec(b.acquire.ReturnNS), sec(b.endLB()), why)})
		}
	}
	return out
}
