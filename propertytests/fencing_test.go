package propertytests

import (
	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Property 4, fencing: token order is ownership order. Every lock a fleet
// hands out carries a fencing token (every mode draws one), and a resource
// that keeps the highest token it has seen (package fence) is safe only if
// an owner whose ownership began later always holds the larger token: a
// holder that stalled between its claim and its token's arrival, and whose
// lease lapsed meanwhile, must not return a lock at all — or its late token,
// above its successor's, would let its stale writes through and refuse the
// successor's.
//
// Ownership begins with the send of the winning claim: the last write of an
// owner cell (the queue lock's "~o/" column, the legacy main row) a process
// sent before its Lock returned. Lemma 1 orders winning claims, so the
// checker needs no help from the algorithms to know who owned first.

// fenceLog is what the checker knows of the tokens handed out.
type fenceLog struct {
	claimSent map[claimKey]int64 // virtual time of an acquisition's latest claim of an id
	handed    []handout
}

// claimKey names the claims of one acquisition (its owner id, as its owner
// cells name it) for one lock id. Not the process: two goroutines of one
// process sharing a Locker claim one id under different owners, and one's
// claim says nothing of when the other's ownership began.
type claimKey struct{ owner, id string }

// handout is one lock returned to a caller, or one member of a group.
type handout struct {
	id     string // tokens order the owners of one lock id
	owner  string
	access lockstep.Access // a flat lock's is Exclusive
	start  int64           // virtual µs: its winning claim's send
	token  int64
	mode   lockstep.Mode // the mode it was taken in
}

// noteClaim records the send time of a claim: a write of an owner cell of
// an id by an acquisition that does not hold that id yet (a holder's
// rewrites are renewals). A group's member taken earlier in the same
// acquisition is not known to hold yet, so its renewals move its claim
// later; that cannot invert the order against an incompatible holder,
// which owned either before its true claim or after its release.
func (h *harness) noteClaim(y *sim.Yield) {
	for _, c := range y.Cells {
		if !isOwnerCell(y.Table, c.Column) {
			continue
		}
		owner := ownerOf(y.Table, c.Column, c.Value)
		if owner == "" || h.ownerHolds(owner, y.Row) {
			continue
		}
		if h.fencing.claimSent == nil {
			h.fencing.claimSent = map[claimKey]int64{}
		}
		h.fencing.claimSent[claimKey{owner, y.Row}] = y.SentElapsed
		h.noteClaimBy(claimKey{owner, y.Row}, y)
	}
}

// ownerHolds reports whether a lock the harness saw returned, or a member
// of one, holds id under owner (its own, or a combined lock's legacy
// half's).
func (h *harness) ownerHolds(owner, id string) bool {
	for _, pr := range h.procs {
		for _, l := range h.heldAll(pr) {
			ms, _ := memberLocks(l)
			for _, m := range ms {
				if h.row(pr, m.ID()) == id && (m.Owner() == owner || legacyOwner(m) == owner) {
					return true
				}
			}
		}
	}
	return false
}

// claimOf returns the send time of the winning claim of l (a flat lock or
// a member): the later of its own owner's and, for a combined lock, its
// legacy half's.
func (h *harness) claimOf(pr *proc, l lockstep.Lock) int64 {
	row := h.row(pr, l.ID())
	t := h.fencing.claimSent[claimKey{l.Owner(), row}]
	if lo := legacyOwner(l); lo != "" {
		t = max(t, h.fencing.claimSent[claimKey{lo, row}])
	}
	return t
}

// checkToken checks property 4 for the lock l that pr just acquired; the
// caller holds h.mu.
func (h *harness) checkToken(pr *proc, l lockstep.Lock) {
	if h.v.noFencing {
		return
	}
	f, ok := l.(lockstep.Fenced)
	if !ok {
		h.violate("fencing: %s acquired %s in mode %v, a lock without a fencing token", pr.sp.Name, l.Owner(), l.Mode())
		return
	}
	t := f.Token()
	if t <= 0 {
		h.violate("fencing: %s acquired %s in mode %v with token %d, no token although fencing is on", pr.sp.Name, l.Owner(), l.Mode(), t)
		return
	}
	h.checkReserved(pr, l.Owner(), h.row(pr, l.ID()), t)
	now := handout{id: h.row(pr, l.ID()), owner: l.Owner(), access: lockstep.Exclusive, start: h.claimOf(pr, l), token: t, mode: l.Mode()}
	h.countDraw(pr, now)
	h.checkOrder(now)
}

// checkMemberTokens checks property 4 for every member of group l that pr
// just acquired and that carries a token (a group of several members is not
// Fenced itself: internal/manager); the caller holds h.mu.
func (h *harness) checkMemberTokens(pr *proc, l lockstep.Lock) {
	if h.v.noFencing {
		return
	}
	ms, acc := memberLocks(l)
	for i, m := range ms {
		if f, ok := m.(lockstep.Fenced); ok && f.Token() > 0 {
			h.checkReserved(pr, m.Owner(), h.row(pr, m.ID()), f.Token())
			h.checkOrder(handout{id: h.row(pr, m.ID()), owner: m.Owner(), access: acc[i], start: h.claimOf(pr, m), token: f.Token(), mode: m.Mode()})
		}
	}
}

// checkOrder checks handout now against every earlier one of its id held
// in an incompatible access (compatible holders may own at once, and their
// tokens need no order), and records it; the caller holds h.mu.
func (h *harness) checkOrder(now handout) {
	for _, o := range h.fencing.handed {
		if o.id != now.id || o.access.Compatible(now.access) {
			continue
		}
		if (o.start < now.start && o.token >= now.token) || (o.start > now.start && o.token <= now.token) {
			h.violate("fencing: token order is not ownership order: %s (claim sent at %d) holds token %d, %s (claim sent at %d) holds %d",
				now.owner, now.start, now.token, o.owner, o.start, o.token)
			return
		}
	}
	h.fencing.handed = append(h.fencing.handed, now)
}

// isOwnerCell reports whether column col of table is a cell whose life is a
// lock's (internal/layout): the queue lock's owner cells and the legacy main row. (A waiter's
// queue cell or a legacy shadow cell keeps no lock alive.)
func isOwnerCell(table, col string) bool {
	switch table {
	case queuelock.DefaultTable:
		_, _, err := layout.ParseOwnerColumn(col)
		return err == nil
	case shadowlock.DefaultMainTable:
		return true
	}
	return false
}
