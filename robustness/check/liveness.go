package check

import (
	"fmt"
	"sort"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// checkLiveness checks progress after the final heal. A fleet that took no
// lock in mode legacy after the heal runs the queue lock, which is
// starvation-free: every worker whose history runs past heal+bound must have
// acquired some lock within (heal, heal+bound]. The legacy lock is unfair by
// design (seed 000 measured waits of 502 s), so a fleet with legacy holds
// after the heal only has to be deadlock-free: some worker acquired within
// the bound. That is the split the model checks make too (propertytests,
// quietPhase).
func checkLiveness(recs []history.Record, heal, bound int64) []Violation {
	last := map[string]int64{}
	acquired := map[string]bool{}
	legacy, any := false, false
	for _, r := range recs {
		end := r.ReturnNS
		if end == history.Never {
			end = r.InvokeNS
		}
		last[r.Process] = max(last[r.Process], end)
		if r.Op != history.Acquire || r.Outcome != history.OK || r.ReturnNS <= heal {
			continue
		}
		legacy = legacy || r.Mode == "legacy"
		if r.ReturnNS <= heal+bound {
			acquired[r.Process], any = true, true
		}
	}
	var procs []string
	for p := range last {
		if last[p] >= heal+bound {
			procs = append(procs, p)
		}
	}
	sort.Strings(procs)
	if legacy {
		if any || len(procs) == 0 {
			return nil
		}
		return []Violation{{Checker: "liveness", Lock: "*", Detail: fmt.Sprintf(
			"no worker acquired any lock between the final heal at %s and %s (a fleet with legacy holds need only be deadlock-free, and was not)",
			sec(heal), sec(heal+bound))}}
	}
	var out []Violation
	for _, p := range procs {
		if acquired[p] {
			continue
		}
		out = append(out, Violation{Checker: "liveness", Lock: p, Detail: fmt.Sprintf(
			"%s acquired no lock between the final heal at %s and %s (it ran until %s)", p, sec(heal), sec(heal+bound), sec(last[p]))})
	}
	return out
}
