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
// Ownership is ordered by the winning claim: for a queue lock, by the send
// of the read that followed its last write of an owner cell (the "~o/"
// column) before its Lock returned; for the legacy main row, by that write's
// send. Theorem 3's proof orders two incompatible winners by their reads: the
// later one's read was sent after the earlier one's write completed, and a
// read sent the other way round would have returned the other's owner cell.
// Claim writes alone do not order them: a write sent early and applied late
// can win after a holder whose claim was sent later. Theorem 2 orders legacy
// winners by their main writes (each sent after its main read, which was
// sent after the other's main write completed). So the checker needs no
// help from the algorithms to know who owned first.

// fenceLog is what the checker knows of the tokens handed out.
type fenceLog struct {
	claimSent map[claimKey]int64 // virtual time of an acquisition's latest claim of an id
	// claimRead: the send of the first read of the id's queue row by the
	// goroutine that sent the acquisition's latest claim, after that claim.
	claimRead map[claimKey]int64
	// readAfter: per goroutine and row, the claim whose read is awaited.
	readAfter map[string]claimKey
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
	order  int64           // virtual µs: what orders it against other owners (claimOrder)
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
		k := claimKey{owner, y.Row}
		h.fencing.claimSent[k] = y.SentElapsed
		h.noteClaimBy(k, y)
		if y.Table == queuelock.DefaultTable {
			if h.fencing.readAfter == nil {
				h.fencing.readAfter, h.fencing.claimRead = map[string]claimKey{}, map[claimKey]int64{}
			}
			delete(h.fencing.claimRead, k)
			g, _ := goroutineOf(y)
			h.fencing.readAfter[g+" "+y.Row] = k
		}
	}
}

// noteClaimRead records the send of a read of a queue row that follows a
// claim of the same goroutine (noteClaim): that claim's read. The caller
// holds h.mu.
func (h *harness) noteClaimRead(y *sim.Yield) {
	if y.Table != queuelock.DefaultTable || h.fencing.readAfter == nil {
		return
	}
	g, _ := goroutineOf(y)
	k, ok := h.fencing.readAfter[g+" "+y.Row]
	if !ok {
		return
	}
	delete(h.fencing.readAfter, g+" "+y.Row)
	h.fencing.claimRead[k] = y.SentElapsed
}

// claimOrder returns what orders l (a flat lock or a member) against other
// owners of its id: its queue claim's read, or, where none was seen (a
// legacy lock; a hold handed over without a read of its own), its winning
// claim's send; for a combined lock the later of its two halves'.
func (h *harness) claimOrder(pr *proc, l lockstep.Lock) int64 {
	row := h.row(pr, l.ID())
	at := func(owner string) int64 {
		k := claimKey{owner, row}
		if t, ok := h.fencing.claimRead[k]; ok {
			return t
		}
		return h.fencing.claimSent[k]
	}
	t := at(l.Owner())
	if lo := legacyOwner(l); lo != "" {
		t = max(t, at(lo))
	}
	return t
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
	now := handout{id: h.row(pr, l.ID()), owner: l.Owner(), access: lockstep.Exclusive, start: h.claimOf(pr, l), order: h.claimOrder(pr, l), token: t, mode: l.Mode()}
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
			h.checkOrder(handout{id: h.row(pr, m.ID()), owner: m.Owner(), access: acc[i], start: h.claimOf(pr, m), order: h.claimOrder(pr, m), token: f.Token(), mode: m.Mode()})
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
		if (o.order < now.order && o.token >= now.token) || (o.order > now.order && o.token <= now.token) {
			h.violate("fencing: token order is not ownership order: %s (claim read sent at %d) holds token %d, %s (claim read sent at %d) holds %d",
				now.owner, now.order, now.token, o.owner, o.order, o.token)
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
