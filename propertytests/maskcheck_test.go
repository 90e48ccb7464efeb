package propertytests

import (
	"strings"

	"github.com/lockstep-go/lockstep"
)

// The access property's view of masks (docs/algorithms.md, section 8.6): a
// request "p/*" names every child of p, those any process has named and
// those none has, so the oracle judges it as that request on each child
// the other side asks for — never by the member the Locker takes for it
// (p, in the mask's access). A Locker that holds a mask beside a child's
// holder in an incompatible access is caught whatever it took.

// maskMark is the last path segment of a mask (internal/manager.Mask).
const maskMark = "*"

// isMask reports whether id is a mask under sep: its last segment is
// maskMark, after at least one other.
func isMask(id, sep string) bool {
	if sep == "" {
		return false
	}
	p, ok := strings.CutSuffix(id, sep+maskMark)
	return ok && p != ""
}

// childOf reports whether id is a child of parent under sep: parent, sep,
// then one segment.
func childOf(id, parent, sep string) bool {
	rest, ok := strings.CutPrefix(id, parent+sep)
	return ok && rest != "" && !strings.Contains(rest, sep)
}

// maskConflict returns the first child, in canonical order, that b asks
// for in an access incompatible with that of a mask of a over its parent.
// What b asks for includes its intention locks (implied), so a holder of a
// grandchild "p/x/y" in X is judged by its IX on the child "p/x". Masks of
// b are keys of their own and meet a's masks in conflict's plain
// comparison.
func maskConflict(a, b map[string]lockstep.Access, sep string) (clash, bool) {
	for _, m := range sortedIDs(a) {
		if !isMask(m, sep) {
			continue
		}
		parent := strings.TrimSuffix(m, sep+maskMark)
		for _, id := range sortedIDs(b) {
			if childOf(id, parent, sep) && !isMask(id, sep) && !a[m].Compatible(b[id]) {
				return clash{id: id, askedA: m, askedB: id, a: a[m], b: b[id]}, true
			}
		}
	}
	return clash{}, false
}
