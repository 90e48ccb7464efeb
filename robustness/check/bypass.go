package check

import (
	"fmt"
	"sort"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// bypassBound is the queue lock's bound on others' acquisitions during one
// wait in a fault-free period, in a fleet of n processes: each other process
// at most twice, once with a queue cell named before it saw ours and once
// while ours was not yet visible to it (propertytests, liveness_test.go).
func bypassBound(n int) int { return 2 * (n - 1) }

// checkBypass counts, for every acquisition in mode new or combined whose
// Lock call began after the heal, the store acquisitions of the same lock by
// other worker processes that returned while it waited, and flags counts
// above bypassBound(n)+slack, n the worker processes that hold the lock
// after the heal. The goroutines of one process (history.Holder) are one
// process here, as the store sees them, and the holds of one process with
// one owner id are one store acquisition, handed between its goroutines in
// memory (local handoff: each store acquisition lasts at most K+1 holds,
// docs/algorithms.md Theorem 4a). A goroutine's own siblings are not
// counted: they are ordered in memory, not by the queue.
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
			procs[history.ProcessOf(h.process)] = true
			fair = fair && (h.mode == "new" || h.mode == "combined")
		}
		if !fair {
			continue
		}
		bound := bypassBound(len(procs)) + slack
		sort.SliceStable(group, func(i, j int) bool { return group[i].acquire.ReturnNS < group[j].acquire.ReturnNS })
		store, _ := storeHolds(group)
		for _, a := range group {
			seen := map[*hold]bool{}
			for _, b := range group {
				if history.ProcessOf(b.process) != history.ProcessOf(a.process) && b.acquire.ReturnNS > a.acquire.InvokeNS && b.acquire.ReturnNS < a.acquire.ReturnNS {
					seen[store[b]] = true
				}
			}
			n := len(seen)
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
