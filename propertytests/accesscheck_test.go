package propertytests

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep"
)

// The properties of the lock-manager fleets (groupfleet_test.go), as pure
// functions over what the harness records: who holds which requests, who
// waits since when for what. They judge a holding by what its holder
// *asked for* — its Request list, with the intention locks a hierarchy
// implies on every ancestor — never by the members the Locker says it took
// (lockstep.Grouped), so a Locker that skips an intention lock, or takes a
// weaker access than asked, is judged by what the caller was promised.

// grant is one holding as the access property sees it.
type grant struct {
	who  string             // the holder: its process (and goroutine) name
	reqs []lockstep.Request // what it asked for
}

// ancestors returns the proper ancestors of id under separator sep,
// outermost first ("a", "a/b" for "a/b/d"); none with sep "".
func ancestors(id, sep string) []string {
	if sep == "" {
		return nil
	}
	var out []string
	for i := 0; ; {
		j := strings.Index(id[i:], sep)
		if j < 0 {
			return out
		}
		out = append(out, id[:i+j])
		i += j + len(sep)
	}
}

// implied returns, per id, the access reqs ask for: each request's own
// access on its id and its Intention on every proper ancestor (multiple
// granularity locking: locking "a/b" in X announces IX on "a"), joined per
// id with lockstep.Join, as one acquisition must hold it to serve them all.
func implied(reqs []lockstep.Request, sep string) map[string]lockstep.Access {
	out := map[string]lockstep.Access{}
	add := func(id string, a lockstep.Access) {
		if have, ok := out[id]; ok {
			a = lockstep.Join(have, a)
		}
		out[id] = a
	}
	for _, r := range reqs {
		for _, p := range ancestors(r.ID, sep) {
			add(p, r.Access.Intention())
		}
		add(r.ID, r.Access)
	}
	return out
}

// A mask "p/*" stays a key of its own in what implied returns: it asks for
// its access on every child of p, named or not, and its intention on p and
// p's ancestors as any request of a child does. conflict compares it with
// every child of p the other side asks for (maskcheck_test.go).

// sortedIDs returns the ids of m in canonical (bytewise) order.
func sortedIDs(m map[string]lockstep.Access) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// firstMember returns the first member of the canonical plan of m: the id
// a group acquisition queues for first, and its access there.
func firstMember(m map[string]lockstep.Access) lockstep.Request {
	id := sortedIDs(m)[0]
	return lockstep.Request{ID: id, Access: m[id]}
}

// clash is an id two holdings ask for in incompatible accesses: a and b,
// the access of each side there. asked names a side's request when it is
// a mask ("a/*" asking for its child "a/x"), else it is id.
type clash struct {
	id             string
	askedA, askedB string
	a, b           lockstep.Access
}

// side describes one side of c: its access, and the mask that asked for
// c.id if one did.
func (c clash) side(a lockstep.Access, asked string) string {
	if asked == c.id {
		return a.String()
	}
	return fmt.Sprintf("%v (by the mask %q)", a, asked)
}

// conflict returns the first id, in canonical order, that a and b both ask
// for in incompatible accesses, a mask of either side asking for every
// child of its parent (maskcheck_test.go).
func conflict(a, b map[string]lockstep.Access, sep string) (clash, bool) {
	for _, id := range sortedIDs(a) {
		if bb, in := b[id]; in && !a[id].Compatible(bb) {
			return clash{id: id, askedA: id, askedB: id, a: a[id], b: bb}, true
		}
	}
	if c, ok := maskConflict(a, b, sep); ok {
		return c, true
	}
	c, ok := maskConflict(b, a, sep)
	c.askedA, c.askedB, c.a, c.b = c.askedB, c.askedA, c.b, c.a
	return c, ok
}

// checkAccessExclusion is property G1, access exclusion: no two holdings
// with Lost() open ask, with ancestors implied, for one id in incompatible
// accesses. A holder of "a/b":X therefore conflicts with one of "a":S or
// "a":X (IX against S or X on "a") and with one of "a/b/d" in any access
// (an intention on "a/b" against X), but not with one of "a/c":X (IX and
// IX on "a").
func checkAccessExclusion(gs []grant, sep string) error {
	imp := make([]map[string]lockstep.Access, len(gs))
	for i, g := range gs {
		imp[i] = implied(g.reqs, sep)
	}
	for i := range gs {
		for j := i + 1; j < len(gs); j++ {
			if c, ok := conflict(imp[i], imp[j], sep); ok {
				return fmt.Errorf("mutual exclusion: %s holds %v and %s holds %v with Lost() open at once: %q asked for in %v and %v, incompatible",
					gs[i].who, gs[i].reqs, gs[j].who, gs[j].reqs, c.id, c.side(c.a, c.askedA), c.side(c.b, c.askedB))
			}
		}
	}
	return nil
}

// groupWait is one pending group acquisition (LockGroup or Lock, not a
// try): what it asked for and since when it waits.
type groupWait struct {
	reqs  []lockstep.Request
	start int64 // virtual µs of the call
	quiet bool  // the call began in the quiet phase
	// first is the first member of its canonical plan, where it queues at
	// once; members is the plan's size.
	first   lockstep.Request
	members int
	// overtakes counts acquisitions by others that overtook it (overtakes).
	overtakes int
}

func newGroupWait(reqs []lockstep.Request, sep string, start int64, quiet bool) *groupWait {
	imp := implied(reqs, sep)
	return &groupWait{reqs: reqs, start: start, quiet: quiet, first: firstMember(imp), members: len(imp)}
}

// overtakes reports whether an acquisition asking for by (ancestors
// implied), whose call began at byStart, overtook waiting acquisition w:
// it began strictly later than w and asks for w's first member in an
// access incompatible with w's. w queued for its first member when its
// call began, so such an acquisition came later to the same line and went
// ahead of an earlier request it must wait for — the claim rule of the
// access-aware queue ("compatible with every earlier live queue request")
// forbids that except in the floor-bypass cases bypassBound allows for.
// Acquisitions compatible with w there, or of other ids (w's later members,
// which it has not queued for yet), are no overtaking.
func overtakes(w *groupWait, by map[string]lockstep.Access, byStart int64) bool {
	a, ok := by[w.first.ID]
	return ok && byStart > w.start && !a.Compatible(w.first.Access)
}

// checkBypass is property G3, bounded bypass: a wait that began in the
// quiet phase is overtaken at most bypassBound(n) times, n the fleet's
// user goroutines — the bound the "new" fleet states for one exclusive id,
// generalised from every acquisition to the incompatible, later ones. Its
// failure reads "bypass: …" (in the quiet phase, "liveness: bypass: …"),
// which rapid tells apart from other liveness failures (reraiseFailure).
func checkBypass(who string, w *groupWait, n int) error {
	if w.quiet && w.overtakes > bypassBound(n) {
		return fmt.Errorf("bypass: %s waiting for %v was overtaken %d times at %v by later incompatible requests (bound %d)",
			who, w.reqs, w.overtakes, w.first, bypassBound(n))
	}
	return nil
}

// groupWaitBound bounds, in the quiet phase, the wait of a group
// acquisition whose plan has members members: at each member it waits at
// most as one exclusive id does in the "new" fleet (livenessBound) — those
// ahead of it there hold only ids ordered before the ones they wait for, so
// their chain ends at a holder that works and releases — and it queues for
// its members one after the other.
func groupWaitBound(members int) int64 {
	return int64(members) * livenessBound.Microseconds()
}

// checkGroupWait is property G2, every pending group acquisition completes:
// in the quiet phase no wait lasts beyond groupWaitBound of its plan.
func checkGroupWait(who string, w *groupWait, quietStart, now int64) error {
	since := max(w.start, quietStart)
	if now-since > groupWaitBound(w.members) {
		return fmt.Errorf("%s has waited %v in the quiet phase for %v, a plan of %d members (bound %v)",
			who, usDuration(now-since), w.reqs, w.members, usDuration(groupWaitBound(w.members)))
	}
	return nil
}

func usDuration(us int64) time.Duration { return time.Duration(us) * time.Microsecond }
