package check

import (
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// maxMisalignment is how far the register's clock may seem to stray from a
// worker's before the run's times are not trusted: the checkers compare the
// two to the lease windows (a second or more), and one host's clocks agree
// to microseconds unless the epoch passed to the workers is wrong.
const maxMisalignment = 100 * time.Millisecond

// checkAlignment matches each write a worker recorded with a known outcome
// to the register's log entry for it, which must fall inside the worker's
// [invoke, return] interval. A write outside it means the worker and the
// register do not share the epoch (a wrong --epoch-unix-ns, or a wall-clock
// step while workers started), which would make every time comparison of
// the other checkers meaningless. It returns the worst distance outside an
// interval, in ns, and a violation of checker "harness" beyond
// maxMisalignment.
func checkAlignment(recs []history.Record, ops []register.Op) (int64, []Violation) {
	type key struct {
		process, lock string
		token, prev   int64
		kind          register.Kind
	}
	at := map[key]int64{}
	for _, op := range ops {
		if op.Kind == register.WriteFenced || op.Kind == register.WriteCounter {
			at[key{op.Process, op.Lock, op.Token, op.Prev, op.Kind}] = op.AtNS
		}
	}
	var worst int64
	var where history.Record
	for _, r := range recs {
		if r.Op != history.Write || r.Outcome == history.Unknown {
			continue
		}
		kind := register.WriteFenced
		if r.Register == history.Counter {
			kind = register.WriteCounter
		}
		t, ok := at[key{r.Process, r.Lock, r.Token, r.Read, kind}]
		if !ok {
			continue
		}
		if d := max(r.InvokeNS-t, t-r.ReturnNS); d > worst {
			worst, where = d, r
		}
	}
	if worst <= int64(maxMisalignment) {
		return worst, nil
	}
	return worst, []Violation{{Checker: "harness", Lock: where.Lock, Detail: fmt.Sprintf(
		"the register applied a write of %s %v outside the interval the worker recorded for it: the worker's clock and the register's disagree (wrong --epoch-unix-ns?); no time comparison can be trusted",
		where.Process, time.Duration(worst))}}
}
