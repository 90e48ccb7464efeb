package check

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// Span is a time interval in ns since the run's epoch (a DC partition, from
// its injection to its heal).
type Span struct{ From, To int64 }

// ScopeCount is what one scope did in one data centre: the successful
// acquisitions of its workers there, how many of them returned while the
// data centres were cut apart, and how many of its holds ended lost.
type ScopeCount struct {
	Scope, DC   string
	Holds       int
	InPartition int
	Lost        int
}

func (c ScopeCount) String() string {
	return fmt.Sprintf("%s %s %d holds (%d during DC partitions, %d lost)", c.Scope, c.DC, c.Holds, c.InPartition, c.Lost)
}

// checkScopes judges what the mutex and access checkers cannot see from one
// lock key alone: every record's scope agrees with its key and its worker's
// data centre (a DC-local lock is taken only in its own data centre, a
// global key never names one), and, with Options.LocalProgress and DC
// partitions in Options.Partitions, each data centre took some DC-local
// lock while cut off. It also counts the holds per scope and data centre
// (Report.Scopes). Mutual exclusion per scope needs nothing here: a global
// lock's key is its id in every data centre, so the mutex model judges its
// holds across data centres; a DC-local lock's key is LocalKey(id, dc), so
// holders of one id in two data centres are two locks and never compared.
func checkScopes(recs []history.Record, hs []*hold, opts Options, r *Report) []Violation {
	var out []Violation
	bad := map[string]bool{}
	dcs := map[string]bool{}
	for _, rec := range recs {
		if rec.DC != "" {
			dcs[rec.DC] = true
		}
		_, dc, local := history.SplitLocal(rec.Lock)
		var why string
		switch {
		case rec.Scope == history.ScopeLocal && !local:
			why = fmt.Sprintf("a DC-local record whose key %q names no data centre (want id@dc)", rec.Lock)
		case rec.Scope == history.ScopeLocal && dc != rec.DC:
			why = fmt.Sprintf("%s of the DC-local lock of %s by a worker in %q", rec.Op, dc, rec.DC)
		case rec.Scope != history.ScopeLocal && local:
			why = fmt.Sprintf("a %s record with a DC-local key", scopeName(rec.Scope))
		}
		if why != "" && !bad[rec.Process+"\x00"+rec.Lock] {
			bad[rec.Process+"\x00"+rec.Lock] = true
			out = append(out, Violation{Checker: "scope", Lock: rec.Lock, Detail: rec.Process + ": " + why})
		}
	}
	if len(dcs) == 0 {
		return out // a run without data centres: nothing to count
	}
	counts := map[[2]string]*ScopeCount{}
	count := func(scope, dc string) *ScopeCount {
		k := [2]string{scope, dc}
		if counts[k] == nil {
			counts[k] = &ScopeCount{Scope: scope, DC: dc}
		}
		return counts[k]
	}
	for dc := range dcs {
		count(history.ScopeGlobal, dc)
		count(history.ScopeLocal, dc)
	}
	for _, h := range hs {
		c := count(scopeName(h.acquire.Scope), h.acquire.DC)
		c.Holds++
		if inSpans(h.acquire.ReturnNS, opts.Partitions) {
			c.InPartition++
		}
		if h.end == endLost {
			c.Lost++
		}
	}
	for _, c := range counts {
		r.Scopes = append(r.Scopes, *c)
	}
	sort.Slice(r.Scopes, func(i, j int) bool {
		a, b := r.Scopes[i], r.Scopes[j]
		if a.Scope != b.Scope {
			return a.Scope < b.Scope
		}
		return a.DC < b.DC
	})
	for _, s := range opts.Partitions {
		r.PartitionTime += time.Duration(s.To - s.From)
	}
	if opts.LocalProgress && len(opts.Partitions) > 0 {
		for _, c := range r.Scopes {
			if c.Scope == history.ScopeLocal && c.DC != "" && c.InPartition == 0 {
				out = append(out, Violation{Checker: "dc-progress", Lock: "*@" + c.DC, Detail: fmt.Sprintf(
					"no DC-local lock was acquired in %s during %d DC partition(s) of %v in all: a DC-local lock must keep working on both sides",
					c.DC, len(opts.Partitions), r.PartitionTime.Round(100*time.Millisecond))})
			}
		}
	}
	return out
}

func scopeName(s string) string {
	if s == "" {
		return history.ScopeGlobal
	}
	return s
}

func inSpans(t int64, spans []Span) bool {
	for _, s := range spans {
		if t >= s.From && t <= s.To {
			return true
		}
	}
	return false
}

// scopeSummary is the summary's line of per-scope counts ("" without data
// centres).
func (r Report) scopeSummary() string {
	if len(r.Scopes) == 0 {
		return ""
	}
	var parts []string
	for _, c := range r.Scopes {
		parts = append(parts, c.String())
	}
	return fmt.Sprintf("check: per scope and data centre: %s; DC partitions %v in all\n",
		strings.Join(parts, "; "), r.PartitionTime.Round(100*time.Millisecond))
}
