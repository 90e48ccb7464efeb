package check

import (
	"fmt"
	"slices"
	"time"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// MoveReport sums up the lockd clients' fail-overs (history.Move): how
// many moves finished, by the client's language, how long they took from
// the client noticing its lockd had failed to the move's end, the locks
// they kept and lost, and how many failed (the session ended).
type MoveReport struct {
	Moves, Go, Python int
	Failed            int
	// Times are the finished moves' lengths, sorted.
	Times      []time.Duration
	Kept, Lost int
}

// Moves sums up ms.
func Moves(ms []history.Move) MoveReport {
	var r MoveReport
	for _, m := range ms {
		if m.To == "" {
			r.Failed++
			r.Lost += m.Lost
			continue
		}
		r.Moves++
		if m.Lang == history.LangPython {
			r.Python++
		} else {
			r.Go++
		}
		r.Kept += m.Kept
		r.Lost += m.Lost
		r.Times = append(r.Times, time.Duration(m.EndedNS-m.BeganNS))
	}
	slices.Sort(r.Times)
	return r
}

// Add adds o's moves to r (a run's sum over its segments).
func (r *MoveReport) Add(o MoveReport) {
	r.Moves, r.Go, r.Python, r.Failed = r.Moves+o.Moves, r.Go+o.Go, r.Python+o.Python, r.Failed+o.Failed
	r.Kept, r.Lost = r.Kept+o.Kept, r.Lost+o.Lost
	r.Times = append(r.Times, o.Times...)
	slices.Sort(r.Times)
}

// Quantile is the q-quantile (0..1) of the move times, by the nearest
// rank; 0 without moves.
func (r MoveReport) Quantile(q float64) time.Duration {
	if len(r.Times) == 0 {
		return 0
	}
	i := int(q*float64(len(r.Times))+0.999999) - 1
	return r.Times[min(max(i, 0), len(r.Times)-1)]
}

func (r MoveReport) summary() string {
	if r.Moves == 0 && r.Failed == 0 {
		return ""
	}
	return fmt.Sprintf("check: lockd fail-overs %d (go %d, python %d), move p50 %d ms p99 %d ms, locks kept %d, lost at moves %d, failed moves %d\n",
		r.Moves, r.Go, r.Python, r.Quantile(0.5).Milliseconds(), r.Quantile(0.99).Milliseconds(), r.Kept, r.Lost, r.Failed)
}
