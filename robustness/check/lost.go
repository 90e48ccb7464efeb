package check

import (
	"fmt"
	"sort"
	"strings"
)

// LockdEvent is one lockd nemesis of a run (a lockd killed or paused, or a
// client cut off from its lockd): its name, the clients it affected (the
// process ids of the workers that took their locks through that lockd or
// proxy), and when it was in place, ns since the epoch: From when it was
// injected, To when its heal began.
type LockdEvent struct {
	Name     string
	Clients  []string
	From, To int64
}

// checkLockdLoss is the lockd-loss checker: every affected client was told
// its lock was lost. For each lockd event, every hold of an affected client
// that spanned it — acquired before the heal began, and not ended (by an
// Unlock's invocation or a known loss) before the injection — must have
// ended by a loss report: the client learned of it by lockd/client's rules
// (lockd said so, the watch stream broke, or no keep-alive was answered for
// the session's TTL), by seeing Lost() closed or Unlock saying the lock was
// lost. A hold that ended by a successful Unlock after the event, as if
// nothing happened, or never ended, is a violation. Each event here outlasts
// what its clients' rules need (a kill breaks the stream at once; a pause
// outlasts the lock TTL and a cut the session TTL, both longer than the
// session TTL), so every such hold must be lost.
//
// When the client knew is judged by the other checkers: its lost record
// ends the hold at that instant, and the mutex model and the access
// checker find no other holder before it.
//
// A client given every lockd (movers) is the other way round: at each
// lockd event, whichever lockd it uses then, none of its holds that
// spanned the event may end by a loss report with time still ahead — its
// session moves to another lockd with its locks (docs/algorithms.md §8.8).
// A lock lost by a client that could fail over is a violation, unless the
// lock's own time had run out when the client counted it lost (Expired):
// a lock whose valid_for ends before a move can be answered is lost by
// rule (ii) of §8.8, with or without fail-over; those are counted apart
// (LockdExpiredByMover). So is a loss that surfaced in the client's Unlock
// (LockdUnlockLostByMover): the lock was valid by the client's rules when
// Unlock was invoked — its Lost still open, so no loss reported and its own
// deadline ahead — and the Unlock then reported it lost, its lockd having
// failed under the Unlock and the session not moving with the lock (the
// lockd may have released it before it stopped: the move's adoption then
// finds no holder). The hold ended at the Unlock's invocation, before the
// failure, as any release does, and the other checkers judge it so; the
// records must show it (holds.go, unlockLoss), a label alone does not do.
// The affected clients that could not fail over (one lockd) are judged as
// above.
func checkLockdLoss(hs []*hold, evs []LockdEvent, movers []string, r *Report) []Violation {
	byProc := map[string][]*hold{}
	for _, h := range hs {
		byProc[h.process] = append(byProc[h.process], h)
	}
	mover := map[string]bool{}
	for _, m := range movers {
		mover[m] = true
	}
	spans := func(h *hold, e LockdEvent) bool {
		return h.acquire.ReturnNS < e.To && (h.end == endOpen || h.endInvoke >= e.From)
	}
	var out []Violation
	judged := map[*hold]bool{} // a mover's hold spanning several events counts once
	for _, e := range evs {
		movs := append([]string(nil), movers...)
		sort.Strings(movs)
		for _, p := range movs {
			for _, h := range byProc[p] {
				if !spans(h, e) || judged[h] {
					continue
				}
				judged[h] = true
				r.LockdMoverSpanning++
				if h.end == endLost && h.expired {
					r.LockdExpiredByMover++
					continue
				}
				if h.end == endLost && h.inUnlock {
					r.LockdUnlockLostByMover++
					continue
				}
				if h.end == endLost {
					r.LockdLostByMover++
					out = append(out, Violation{Checker: "lockd-loss", Lock: h.lock, Detail: fmt.Sprintf(
						"%s, a client given every lockd, held %s from %s across %s (%s to %s) and lost it (reported at %s): its session should have moved to another lockd with the lock",
						p, h.lock, sec(h.acquire.ReturnNS), e.Name, sec(e.From), sec(e.To), sec(h.endInvoke))})
				}
			}
		}
		clients := append([]string(nil), e.Clients...)
		sort.Strings(clients)
		for _, p := range clients {
			if mover[p] {
				continue // judged above
			}
			for _, h := range byProc[p] {
				if !spans(h, e) {
					continue // after the event, or ended before it
				}
				r.LockdSpanning++
				switch h.end {
				case endLost:
					r.LockdLost++
					continue
				case endRelease:
					out = append(out, Violation{Checker: "lockd-loss", Lock: h.lock, Detail: fmt.Sprintf(
						"%s held %s from %s across %s (%s to %s) and ended it by a successful Unlock at %s: the client was not told the lock was lost",
						p, h.lock, sec(h.acquire.ReturnNS), e.Name, sec(e.From), sec(e.To), sec(h.endInvoke))})
				default:
					out = append(out, Violation{Checker: "lockd-loss", Lock: h.lock, Detail: fmt.Sprintf(
						"%s held %s from %s across %s (%s to %s) and its history records no end: no loss was reported",
						p, h.lock, sec(h.acquire.ReturnNS), e.Name, sec(e.From), sec(e.To))})
				}
			}
		}
	}
	return out
}

// lockdSummary is the report's line on the lockd events, empty without any.
func (r Report) lockdSummary() string {
	if r.LockdEvents == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "check: %d lockd events; %d holds of affected clients with one lockd spanned them, %d of them ended by a loss report; %d holds of clients given every lockd spanned them, %d of them lost with time ahead, %d whose own time ran out, %d lost in their Unlock\n",
		r.LockdEvents, r.LockdSpanning, r.LockdLost, r.LockdMoverSpanning, r.LockdLostByMover, r.LockdExpiredByMover, r.LockdUnlockLostByMover)
	b.WriteString(r.Moves.summary())
	return b.String()
}
