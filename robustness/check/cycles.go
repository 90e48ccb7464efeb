package check

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// The bound on how long a cycle of waits may last (checker cycle), after
// docs/algorithms.md §8.5, Theorem 13: a cycle of hold edges among waits
// of detecting Lockers whose store requests succeed, existing from t₀ on,
// loses a member to ErrDeadlock before t₀ + After + Every + 4D, D bounding
// one store request's round trip. The victim then deletes its record (R1,
// one more round trip) before its call returns, which is what the history
// sees: After + Every + 5D.
//
//   - After 500 ms and Every 250 ms are the lock-manager workers'
//     detection options (rbworker's lockmanDetection).
//   - D = 750 ms: a round trip of one QUORUM request to the 3-node cluster
//     on the shared 2-core host outside faults. Faults are not judged at
//     all (Options.Faults): inside one a request may take up to the
//     driver's timeout, and Theorem 13 assumes requests succeed.
//   - cycleHarnessSlack covers what is not the library's: the worker's
//     goroutines scheduled late on a loaded host and the recording of the
//     return (the clocks' misalignment is already taken off the interval,
//     see checkCycles).
const (
	cycleAfter        = 500 * time.Millisecond
	cycleEvery        = 250 * time.Millisecond
	cycleRoundTrip    = 750 * time.Millisecond
	cycleHarnessSlack = 500 * time.Millisecond
	// CycleBound is how long a cycle of certain waits may last outside
	// faults: 5 s.
	CycleBound = cycleAfter + cycleEvery + 5*cycleRoundTrip + cycleHarnessSlack
	// faultRecovery extends every fault past its heal: the driver
	// reconnects to a restarted node and stalled rounds resume (the 5 s
	// the liveness bound allows for the same).
	faultRecovery = 5 * time.Second
)

// A cycle is one cycle of waits the history makes certain: its waits (one
// per process), and the span in which all of them, and the holds they
// wait for, certainly existed together.
type cycle struct {
	waits    []wait
	from, to int64
}

func (c cycle) key() string {
	var parts []string
	for _, w := range c.waits {
		parts = append(parts, fmt.Sprintf("%s@%d", w.e.Process, w.invoke))
	}
	return strings.Join(parts, " ")
}

func (c cycle) String() string {
	var parts []string
	for _, w := range c.waits {
		parts = append(parts, fmt.Sprintf("%s waits for %s:%s (since %s)", w.e.Process, w.e.ID, w.e.Access, sec(w.invoke)))
	}
	return strings.Join(parts, "; ")
}

// checkCycles finds every cycle the recorded waits and holds of the dl-
// ids make certain, counts them in r, and reports one that lasted longer
// than bound outside the faults (each extended by faultRecovery).
//
// Strict, unlike the ErrDeadlock oracle (deadlock.go): nothing uncertain
// may become a violation. A wait is certain from its invoke to its return
// (the call was in progress and had asked for its id); a hold from its
// acquisition's return to the last instant its worker saw Lost() open
// (mhold.from..to: the lease then surely ran, so the id was not free).
// Every such interval is narrowed by deadlockSlack at both ends, since the
// processes' clocks agree only within it. An edge P → Q exists while P
// certainly waits for an id Q certainly holds in an incompatible access;
// then P's wait is certainly not granted (exclusion), so a cycle of such
// edges certainly existed. Reentrant acquisitions never wait and are left
// out; a process runs one unit of work at a time, so it has at most one
// wait at a time and a cycle is named by its waits.
func checkCycles(evs []history.Event, faults []Span, bound time.Duration, r *LockmanReport) []Violation {
	var ws []wait
	for _, e := range evs {
		if e.Op != history.EvAcquire || e.Reentrant || e.ReturnNS == history.Never {
			continue
		}
		w := wait{e: e, invoke: e.InvokeNS + deadlockSlack, ret: e.ReturnNS - deadlockSlack}
		if w.invoke < w.ret {
			ws = append(ws, w)
		}
	}
	var hs []*mhold
	for _, h := range buildMholds(evs) {
		if h.to-h.from > 2*deadlockSlack {
			hs = append(hs, &mhold{process: h.process, id: h.id, access: h.access, from: h.from + deadlockSlack, to: h.to - deadlockSlack})
		}
	}
	cs := certainCycles(ws, hs)
	var out []Violation
	for _, c := range cs {
		r.Cycles++
		if len(c.waits) >= 3 {
			r.LongCycles++
		}
		d := time.Duration(c.to - c.from)
		r.LongestCycle = max(r.LongestCycle, d)
		judged := longestOutside(c.from, c.to, faults)
		r.LongestJudgedCycle = max(r.LongestJudgedCycle, judged)
		if judged > bound {
			out = append(out, Violation{Checker: "cycle", Lock: c.waits[0].e.ID, Detail: fmt.Sprintf(
				"a cycle of %d waits certainly existed from %s to %s (%v, %v of it outside faults and their %v recovery), longer than the bound %v: %s",
				len(c.waits), sec(c.from), sec(c.to), d.Round(time.Millisecond), judged.Round(time.Millisecond), faultRecovery, bound, c)})
		}
	}
	return out
}

// certainCycles sweeps the instants at which some wait or hold starts or
// ends: between two of them the edges do not change, so the graph is
// built once per stretch, and a cycle present in consecutive stretches is
// one cycle.
func certainCycles(ws []wait, hs []*mhold) []cycle {
	var ts []int64
	for _, w := range ws {
		ts = append(ts, w.invoke, w.ret)
	}
	for _, h := range hs {
		ts = append(ts, h.from, h.to)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	open := map[string]*cycle{}
	var done []cycle
	for i := 0; i+1 < len(ts); i++ {
		a, b := ts[i], ts[i+1]
		if a == b {
			continue
		}
		mid := a + (b-a)/2
		seen := map[string]bool{}
		for _, c := range cyclesAt(mid, ws, hs) {
			k := c.key()
			seen[k] = true
			if o := open[k]; o != nil {
				o.to = b
				continue
			}
			c.from, c.to = a, b
			open[k] = &c
		}
		for k, o := range open {
			if !seen[k] {
				done = append(done, *o)
				delete(open, k)
			}
		}
	}
	for _, o := range open {
		done = append(done, *o)
	}
	sort.Slice(done, func(i, j int) bool {
		if done[i].from != done[j].from {
			return done[i].from < done[j].from
		}
		return done[i].key() < done[j].key()
	})
	return done
}

// cyclesAt lists the simple cycles of certain edges at instant t, each
// once, its waits starting from the one of the smallest key.
func cyclesAt(t int64, ws []wait, hs []*mhold) []cycle {
	waitOf := map[string]wait{}
	for _, w := range ws {
		if w.invoke <= t && t <= w.ret {
			waitOf[w.e.Process] = w
		}
	}
	edges := map[string][]string{}
	for p, w := range waitOf {
		for _, h := range hs {
			if h.id == w.e.ID && h.process != p && !compatible(w.e.Access, h.access) && h.from <= t && t <= h.to {
				if _, waits := waitOf[h.process]; waits {
					edges[p] = append(edges[p], h.process)
				}
			}
		}
	}
	var procs []string
	for p := range edges {
		procs = append(procs, p)
		sort.Strings(edges[p])
	}
	sort.Strings(procs)
	var out []cycle
	// Each simple cycle is found once, from its smallest process: the
	// search from s visits only processes above s.
	for _, s := range procs {
		path := []string{s}
		on := map[string]bool{s: true}
		var dfs func(p string)
		dfs = func(p string) {
			for _, q := range edges[p] {
				switch {
				case q == s:
					c := cycle{}
					for _, m := range path {
						c.waits = append(c.waits, waitOf[m])
					}
					out = append(out, c)
				case q > s && !on[q]:
					on[q] = true
					path = append(path, q)
					dfs(q)
					path = path[:len(path)-1]
					on[q] = false
				}
			}
		}
		dfs(s)
	}
	return out
}

// longestOutside is the longest piece of [from, to] that no fault, from
// its injection to faultRecovery after its heal, overlaps.
func longestOutside(from, to int64, faults []Span) time.Duration {
	type iv struct{ a, b int64 }
	var fs []iv
	for _, f := range faults {
		fs = append(fs, iv{f.From, f.To + int64(faultRecovery)})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].a < fs[j].a })
	var best int64
	t := from
	for _, f := range fs {
		if f.b <= t {
			continue
		}
		if f.a >= to {
			break
		}
		best = max(best, min(f.a, to)-t)
		t = max(t, f.b)
		if t >= to {
			return time.Duration(best)
		}
	}
	return time.Duration(max(best, to-t))
}
