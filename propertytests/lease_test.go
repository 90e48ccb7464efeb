package propertytests

import "github.com/lockstep-go/lockstep"

// Property 3, the lease: a holder works only while every cell its lock
// stands on surely lives — its own owner cell, a combined lock's legacy
// half's, every member's of a group (members_test.go) — judged by the
// model's physics, not by the lease's arithmetic.

// work is where a holder resumes its protected work, having seen Lost()
// open. Property 3 judges that by the model's physics, not by the lease's
// arithmetic: in true (virtual) time, less than cellLife may have passed
// since the send of the holder's latest acknowledged write, or some replica
// may already count its cells expired. A lease derived wrongly (a window
// longer than a cell's life) or measured on a clock that can step fails it.
func (h *harness) work(pr *proc, l lockstep.Lock) {
	h.mu.Lock()
	defer h.mu.Unlock()
	pr.lastWorked = pr.sp.Now()
	pr.worked++
	switch pr.worked {
	case 1:
		pr.seen = h.counter
	case h.workSteps():
		h.counter = pr.seen + 1
		h.increments++
	}
	h.checkLease(pr, l)
	h.checkValidFor(pr, l)
	if h.onWork != nil {
		h.onWork(pr, l)
	}
}

// checkLease is property 3 for pr about to work on l; the caller holds
// h.mu.
func (h *harness) checkLease(pr *proc, l lockstep.Lock) {
	if h.v.noLeaseCheck {
		return
	}
	// Every owner cell the lock stands on: every member's of a group, and
	// a combined lock's legacy half, which has an owner id of its own,
	// renewed by a lease of its own.
	ms, _ := memberLocks(l)
	for _, m := range ms {
		for _, owner := range ownersOf(m) {
			// H1 first: while a handoff is the owner's latest acknowledged
			// write, its window is the tighter one, so a holder beyond
			// both is reported by the property that names the handoff.
			if !h.checkHandedLease(pr, l, owner) {
				return
			}
			if since := h.elapsed(h.lastOK[owner]); since >= cellLife() {
				h.violate("lease: %s works as %s (%v) %v after the send of its last acknowledged write of %s's cells (member %q), but they surely live only %v (TTL %v − 1s − server skew %v): Lost() should have closed",
					pr.sp.Name, l.Owner(), l.Mode(), since, owner, m.ID(), cellLife(), ttl, maxServerSkew)
				return
			}
		}
	}
}

// checkValidFor is property 3's promise to a process that does not watch
// Lost (lockd's clients): a holder told now that l stays valid for
// ValidFor() may work until then with no further look, so every cell l
// stands on must surely live that much longer — judged, as property 3 is,
// by the send of the owner's latest acknowledged write. The caller holds
// h.mu.
func (h *harness) checkValidFor(pr *proc, l lockstep.Lock) {
	if h.v.noLeaseCheck {
		return
	}
	e, ok := l.(lockstep.Expiring)
	if !ok {
		h.violate("lease: valid-for: %s's lock %q (%T) is not lockstep.Expiring", pr.sp.Name, l.ID(), l)
		return
	}
	v := e.ValidFor()
	ms, _ := memberLocks(l)
	for _, m := range ms {
		for _, owner := range ownersOf(m) {
			if since := h.elapsed(h.lastOK[owner]); since+v > cellLife() {
				h.violate("lease: valid-for: %s holds %q as %s and is told it stays valid %v more, but the send of its last acknowledged write of %s's cells (member %q) was %v ago and they surely live only %v: ValidFor reaches past the cells' life",
					pr.sp.Name, l.ID(), l.Owner(), v, owner, m.ID(), since, cellLife())
				return
			}
		}
	}
}

// ownersOf returns the owner ids of the cells l holds: its own, and a
// combined lock's legacy half's.
func ownersOf(l lockstep.Lock) []string {
	out := []string{l.Owner()}
	if lo := legacyOwner(l); lo != "" && lo != l.Owner() {
		out = append(out, lo)
	}
	return out
}
