package check

import (
	"fmt"
	"sort"
)

// bypassBound is the queue lock's bound on others' acquisitions during one
// wait in a fault-free period, in a fleet of n processes: each other process
// at most twice, once with a queue cell named before it saw ours and once
// while ours was not yet visible to it (propertytests, liveness_test.go).
func bypassBound(n int) int { return 2 * (n - 1) }

// checkBypass counts, for every acquisition in mode new or combined whose
// Lock call began after the heal, the acquisitions of the same lock by other
// processes that returned while it waited, and flags counts above
// bypassBound(n)+slack, n the processes that hold the lock after the heal.
// Locks on which anyone acquired in mode legacy after the heal are skipped:
// the legacy lock is unfair by design, and a combined waiter waits on it
// too. It returns the violations and the largest count seen.
func checkBypass(hs []*hold, heal int64, slack int) ([]Violation, int) {
	byLock := map[string][]*hold{}
	for _, h := range hs {
		if h.acquire.InvokeNS >= heal {
			byLock[h.lock] = append(byLock[h.lock], h)
		}
	}
	var locks []string
	for l := range byLock {
		locks = append(locks, l)
	}
	sort.Strings(locks)
	var out []Violation
	most := 0
	for _, lock := range locks {
		group := byLock[lock]
		procs := map[string]bool{}
		fair := true
		for _, h := range group {
			procs[h.process] = true
			fair = fair && (h.mode == "new" || h.mode == "combined")
		}
		if !fair {
			continue
		}
		bound := bypassBound(len(procs)) + slack
		for _, a := range group {
			n := 0
			for _, b := range group {
				if b.process != a.process && b.acquire.ReturnNS > a.acquire.InvokeNS && b.acquire.ReturnNS < a.acquire.ReturnNS {
					n++
				}
			}
			most = max(most, n)
			if n > bound {
				out = append(out, Violation{Checker: "bypass", Lock: lock, Detail: fmt.Sprintf(
					"%s (%s) waited from %s to %s while others acquired %d times; the queue lock allows %d with %d processes",
					a.process, a.mode, sec(a.acquire.InvokeNS), sec(a.acquire.ReturnNS), n, bound, len(procs))})
			}
		}
	}
	return out, most
}
