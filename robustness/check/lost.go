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
func checkLockdLoss(hs []*hold, evs []LockdEvent, r *Report) []Violation {
	byProc := map[string][]*hold{}
	for _, h := range hs {
		byProc[h.process] = append(byProc[h.process], h)
	}
	var out []Violation
	for _, e := range evs {
		clients := append([]string(nil), e.Clients...)
		sort.Strings(clients)
		for _, p := range clients {
			for _, h := range byProc[p] {
				if h.acquire.ReturnNS >= e.To || h.end != endOpen && h.endInvoke < e.From {
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
	fmt.Fprintf(&b, "check: %d lockd events; %d holds of affected clients spanned them, %d of them ended by a loss report\n",
		r.LockdEvents, r.LockdSpanning, r.LockdLost)
	return b.String()
}
