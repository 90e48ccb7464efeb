package check

import (
	"fmt"
	"sort"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// checkLiveness: every worker whose history runs past heal+bound acquired
// some lock within (heal, heal+bound].
func checkLiveness(recs []history.Record, heal, bound int64) []Violation {
	last := map[string]int64{}
	acquired := map[string]bool{}
	for _, r := range recs {
		end := r.ReturnNS
		if end == history.Never {
			end = r.InvokeNS
		}
		last[r.Process] = max(last[r.Process], end)
		if r.Op == history.Acquire && r.Outcome == history.OK && r.ReturnNS > heal && r.ReturnNS <= heal+bound {
			acquired[r.Process] = true
		}
	}
	var procs []string
	for p := range last {
		procs = append(procs, p)
	}
	sort.Strings(procs)
	var out []Violation
	for _, p := range procs {
		if acquired[p] || last[p] < heal+bound {
			continue
		}
		out = append(out, Violation{Checker: "liveness", Lock: p, Detail: fmt.Sprintf(
			"%s acquired no lock between the final heal at %s and %s (it ran until %s)", p, sec(heal), sec(heal+bound), sec(last[p]))})
	}
	return out
}
