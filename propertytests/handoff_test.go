package propertytests

import (
	"fmt"
	"strings"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/wakeup"
)

// Properties of the handoff (docs/algorithms.md, section
// 4.12), beside mutual exclusion and the lease property, which hold for a
// handed hold as for any other (the handed cell is the waiter's owner cell:
// its acknowledged write counts as the waiter's, in lastOK):
//
//   - H1, a handed hold's lease starts no later than the handoff: while the
//     handed cell is the latest acknowledged write of the waiter's cells,
//     the waiter works only within one lease window,
//     (TTL − 1s − MaxServerSkew)/2, of the handoff's send. A waiter that
//     counted from its own read, after the handoff, would work on past it,
//     towards the handed cell's expiry.
//   - H2, a handed cell never outlives the waiter it names: a handoff that
//     names a queue-cell write its waiter has since deleted (an
//     acknowledged delete of its queue cell, timestamped above that write)
//     must be older than the waiter's tombstone of its handed column, so it
//     is dead on arrival — for every waiter whose Locker takes part in
//     handoffs (Options.Handoff).
//   - H3, a grant is sent only while its releaser's lease is open: less than
//     a lease window after the send of the releaser's latest acknowledged
//     write of its cells. A releaser that granted after its lease lapsed,
//     its handoff slow, would grant a lock a third process may have taken
//     while its owner cell had expired at some replicas and the handoff had
//     not reached them. (A late grant's waiter is H1's: it works beyond a
//     lease window of the handoff's send.)

// handoffs is what the harness saw of handoffs. Guarded by harness.mu.
type handoffs struct {
	sent map[string]int64  // waiter's owner → virtual µs of the send of the latest acknowledged handoff naming it
	left map[string]int64  // owner → highest acknowledged tombstone timestamp of a queue cell of its
	tomb map[string]int64  // owner → highest acknowledged tombstone timestamp of its handed column
	own  map[string]int64  // owner → virtual µs of the send of its latest acknowledged write of an owner cell of its own
	from map[string]string // waiter's owner → the releaser whose latest acknowledged handoff names it
	// acked counts acknowledged handoffs; held, acquisitions made by one
	// (confirmed by one read): whose owner's latest acknowledged handoff
	// was sent after every acknowledged write of its own owner cell.
	acked, held int
}

// noteHandedHold counts an acquisition by owner made by a handoff — one
// whose latest acknowledged handoff was sent after every acknowledged
// write of its own owner cell (a claim sent at the same instant wins: a
// waiter that confirms a handoff writes no claim) — and makes that handed
// cell owner's owner cell for property 2b (ownercell_test.go) until its
// own renewal is acknowledged. An acquisition by its own claim keeps its
// claim's column, whatever handed cell naming it arrives late, or was
// written dead (ownership_test.go).
func (h *harness) noteHandedHold(owner string) {
	if h.handoff == nil {
		return
	}
	if sent, ok := h.handoff.sent[owner]; ok && sent > h.handoff.own[owner] {
		h.handoff.held++
		h.queueOwnerCol[owner] = layout.HandedColumn(owner)
	}
}

func (h *harness) handoffState() *handoffs {
	if h.handoff == nil {
		h.handoff = &handoffs{sent: map[string]int64{}, left: map[string]int64{}, tomb: map[string]int64{}, own: map[string]int64{}, from: map[string]string{}}
	}
	return h.handoff
}

// checkHandoffSend checks H2 at the send of handed cell c naming owner.
func (h *harness) checkHandoffSend(y *sim.Yield, c lockstep.Cell, owner string) {
	hs := h.handoffState()
	if hs.left[owner] > c.Timestamp && h.handsOff(owner) && hs.tomb[owner] <= c.Timestamp {
		h.violate("handoff: %v hands the lock to %s, which left the line, and the handed cell (timestamp %d) is not below its tombstone (%d): it blocks the line for a TTL",
			y, owner, c.Timestamp, hs.tomb[owner])
	}
}

// handsOff reports whether owner's process takes part in handoffs.
func (h *harness) handsOff(owner string) bool {
	for _, pr := range h.procs {
		if pr.kind.name == queueHandoff.name && len(owner) > len(pr.sp.Name) && owner[:len(pr.sp.Name)+1] == pr.sp.Name+"." {
			return true
		}
	}
	return false
}

// noteHandoffs records what an acknowledged write y tells about handoffs.
func (h *harness) noteHandoffs(y *sim.Yield) {
	if y.Table != queuelock.DefaultTable {
		return
	}
	hs := h.handoffState()
	for _, col := range y.Columns {
		if _, owner, err := layout.ParseQueueColumn(col); err == nil {
			hs.left[owner] = max(hs.left[owner], y.TS)
			continue
		}
		if owner := handedOwner(col); owner != "" && y.TS > hs.tomb[owner] {
			hs.tomb[owner] = y.TS
		}
	}
	if y.Kind != sim.Put {
		return
	}
	for _, c := range y.Cells {
		owner := ownerOf(y.Table, c.Column, c.Value)
		switch {
		case owner == "" || c.Value == nil || !isOwnerCell(y.Table, c.Column):
		case layout.IsHandedFor(c.Column, owner):
			hs.sent[owner] = y.SentElapsed
			hs.acked++
			hs.from[owner] = releaserOf(y.Columns)
		default:
			hs.own[owner] = max(hs.own[owner], y.SentElapsed)
		}
	}
}

// handedOwner returns the owner whose handed column col is, or "".
func handedOwner(col string) string {
	process, inc, err := layout.ParseOwnerColumn(col)
	if err != nil || len(inc) < 2 || inc[0] != 'h' {
		return ""
	}
	owner := process + "." + inc[1:]
	if !layout.IsHandedFor(col, owner) {
		return ""
	}
	return owner
}

// releaserOf returns the owner whose queue cell a handoff's write deletes:
// its releaser's.
func releaserOf(cols []string) string {
	for _, col := range cols {
		if _, owner, err := layout.ParseQueueColumn(col); err == nil {
			return owner
		}
	}
	return ""
}

// checkGrantSend checks H3 at the send of wake-up b: a grant is sent only
// while its releaser's lease is open, judged by the model's physics — less
// than a lease window (half a cell's sure life) since the send of the
// releaser's latest acknowledged write of its cells. Then its owner cell
// surely outlives every claim read that could miss the handoff (section
// 4.12, "Theorem 3 covers the granted hold").
func (h *harness) checkGrantSend(b []byte) {
	m, err := wakeup.Open(wakeKey, b)
	if err != nil || !strings.HasPrefix(m.From, "grant/") {
		return
	}
	_, waiter, err := layout.ParseQueueColumn(m.To)
	if err != nil {
		h.violate("handoff: a grant names %q, not a queue cell", m.To)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.handoffState().from[waiter]
	if r == "" {
		h.violate("handoff: %s sends %s a grant, but no handoff naming it was acknowledged", m.Sender, waiter)
		return
	}
	if since := h.elapsed(h.lastOK[r]); since >= cellLife()/2 {
		h.violate("handoff: %s grants %s the lock %v after the send of its last acknowledged write of its cells, beyond the lease window %v: its cells may have expired while the handoff was in flight, and another process may hold",
			r, waiter, since, cellLife()/2)
	}
}

// checkHandedLease checks H1 for owner, working now.
func (h *harness) checkHandedLease(pr *proc, l lockstep.Lock, owner string) bool {
	if h.handoff == nil {
		return true
	}
	sent, ok := h.handoff.sent[owner]
	if !ok || sent != h.lastOK[owner] {
		return true // not handed, or renewed since by the waiter itself
	}
	if since := h.elapsed(sent); since >= cellLife()/2 {
		h.violate("handoff: %s works as %s %v after the send of the handoff that made it the owner, beyond the lease window %v: its lease must count from before the handoff's write",
			pr.sp.Name, l.Owner(), since, cellLife()/2)
		return false
	}
	return true
}

// maxStepsToHandoff bounds the fair run of variant.fromHandoff.
const maxStepsToHandoff = 20_000

// runToHandoff runs the fleet as the quiet phase does — every runnable
// goroutine in turn, benign choices, wake-ups arriving at once — until the
// first handoff's write is ready to be sent, checking safety after every
// step. The random phase then decides what happens from there: the
// handoff's write and the waiter's poll in either order, the wake-up, the
// waiter's confirmation.
func (h *harness) runToHandoff() error {
	s := h.s
	next := 0
	for steps := 0; ; steps++ {
		if steps > maxStepsToHandoff {
			return fmt.Errorf("no handoff within %d fair steps", maxStepsToHandoff)
		}
		if h.wake != nil {
			h.wakeArrive()
		}
		ys := s.Runnable()
		for _, y := range ys {
			if isHandoff(y) {
				h.event("random phase from the first handoff")
				return nil
			}
		}
		switch {
		case len(ys) > 0:
			h.grant(roundRobin(ys, &next), zeroChooser{})
		case s.Messages() > 0:
			s.Cluster().DeliverAll()
		case !s.Tick():
			return fmt.Errorf("nothing can run before the first handoff")
		}
		if err := h.checkSafety(); err != nil {
			return fmt.Errorf("%w (before the first handoff)\ntrace:\n%s", err, h.report())
		}
	}
}

// isHandoff reports whether y is a handoff's write not yet sent: a put of
// a handed cell.
func isHandoff(y *sim.Yield) bool {
	if y.Kind != sim.Put || y.Table != queuelock.DefaultTable {
		return false
	}
	for _, c := range y.Cells {
		if handedOwner(c.Column) != "" && c.Value != nil {
			return true
		}
	}
	return false
}
