package check

import (
	"fmt"
	"sort"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// checkTokens judges the fencing tokens the plain holds were granted
// (checker tokens; docs/algorithms.md, Theorem 6a), lock by lock, from the
// acquisition records alone:
//
//   - a grant whose Lock call began after another holder's Lock call
//     returned carries a higher token: the global cell's Next returns more
//     than every value returned before it was sent (Lemma 7), and a token
//     is drawn inside the Lock call that returns it. Pairs of one holder
//     are left out (a unit's reentrant Lock returns its token again);
//   - the holds one store acquisition passed through — the holds of one
//     worker process with one owner id, handed on in memory by local
//     handoff (rbworker --local-handoff) — carry rising tokens in the order
//     their Lock calls returned: each grant is made at its predecessor's
//     Unlock and draws afresh.
//
// Holds with token 0 (no fencing) are skipped. It returns the violations
// and counts the local handoffs: holds whose owner an earlier hold of the
// same lock and worker process had (Report.LocalHandoffs).
func checkTokens(hs []*hold, r *Report) []Violation {
	byLock := map[string][]*hold{}
	var locks []string
	for _, h := range hs {
		if h.token == 0 {
			continue
		}
		if byLock[h.lock] == nil {
			locks = append(locks, h.lock)
		}
		byLock[h.lock] = append(byLock[h.lock], h)
	}
	sort.Strings(locks)
	var out []Violation
	for _, lock := range locks {
		group := byLock[lock]
		sort.SliceStable(group, func(i, j int) bool { return group[i].acquire.ReturnNS < group[j].acquire.ReturnNS })
		out = append(out, handedTokens(lock, group, r)...)
		if v, ok := realTimeTokens(lock, group); ok {
			out = append(out, v)
		}
	}
	return out
}

// handedTokens checks and counts the chains of one store acquisition in
// group (sorted by the Lock calls' returns).
func handedTokens(lock string, group []*hold, r *Report) []Violation {
	_, prev := storeHolds(group)
	var out []Violation
	for _, b := range group {
		a := prev[b]
		if a == nil {
			continue
		}
		r.LocalHandoffs++
		if b.token <= a.token {
			out = append(out, Violation{Checker: "tokens", Lock: lock, Detail: fmt.Sprintf(
				"%s was handed %s's store hold (owner %s) and got token %d at %s, not above that holder's %d (acquired at %s)",
				b.process, a.process, b.acquire.Owner, b.token, sec(b.acquire.ReturnNS), a.token, sec(a.acquire.ReturnNS))})
		}
	}
	return out
}

// storeHolds groups the holds of one lock (sorted by the Lock calls'
// returns) by the store acquisition they had: a hold whose owner id the
// last hold of its worker process with that owner had, and whose holder is
// another (a goroutine is never handed its own store hold), was handed
// that hold's store acquisition by local handoff; any other hold starts a
// store acquisition of its own. It returns each hold's store acquisition
// (the hold that started it) and, for a handed hold, the hold it was
// handed by. The owner alone does not do: a Python lockd client records
// its session as the owner of every lock.
func storeHolds(group []*hold) (start, prev map[*hold]*hold) {
	type key struct{ process, owner string }
	last := map[key]*hold{}
	start, prev = map[*hold]*hold{}, map[*hold]*hold{}
	for _, b := range group {
		start[b] = b
		if b.acquire.Owner == "" {
			continue
		}
		k := key{history.ProcessOf(b.process), b.acquire.Owner}
		if a := last[k]; a != nil && a.process != b.process {
			start[b], prev[b] = start[a], a
		}
		last[k] = b
	}
	return start, prev
}

// realTimeTokens finds the first grant whose token is not above that of
// another holder's grant whose Lock call returned before its own began.
func realTimeTokens(lock string, group []*hold) (Violation, bool) {
	for _, b := range group {
		for _, a := range group {
			if a.acquire.ReturnNS >= b.acquire.InvokeNS {
				break // sorted by return: none later returned before b began
			}
			if a.process != b.process && b.token <= a.token {
				return Violation{Checker: "tokens", Lock: lock, Detail: fmt.Sprintf(
					"%s's Lock call began at %s, after %s's returned at %s with token %d, and got token %d, not above it",
					b.process, sec(b.acquire.InvokeNS), a.process, sec(a.acquire.ReturnNS), a.token, b.token)}, true
			}
		}
	}
	return Violation{}, false
}
