package check

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// deadlockSlack widens every interval the deadlock oracle reads, in the
// lenient direction: the workers and the register share one host's clock
// and the harness check holds them within maxMisalignment of each other.
const deadlockSlack = int64(maxMisalignment)

// wait is one blocking acquisition of a dl- id: its process asked for id in
// access from invoke until return.
type wait struct {
	e           history.Event
	invoke, ret int64
}

// checkDeadlocks judges the deadlock-prone units of work from their
// recorded waits and holds alone, not from the library:
//
//   - every acquisition that failed with ErrDeadlock waited, at some
//     instant of its wait, in a cycle: a process waiting for an id another
//     process possibly held then in an incompatible access, that one
//     waiting in turn, and so back to the victim (the oracle; holds count
//     from their Lock call's invoke to their release's return, waits from
//     invoke to return, each widened by deadlockSlack);
//   - no reported cycle lists a reentrant acquisition (one of an id its
//     unit of work already held) or a pair of compatible accesses;
//   - holds of different processes of one dl- id in incompatible accesses
//     never certainly overlap (exclusion, as checkAccess judges the rest).
//
// It fills the deadlock figures of r, liveness included: the longest wait,
// and the longest that began after the final heal (heal, 0: none).
func checkDeadlocks(evs []history.Event, heal int64, r *LockmanReport) []Violation {
	var waits []wait
	for _, e := range evs {
		if e.Op != history.EvAcquire {
			continue
		}
		r.Acquisitions++
		if e.Reentrant {
			r.Reentrant++
		}
		ret := e.ReturnNS
		if ret == history.Never {
			ret = e.InvokeNS
		}
		d := time.Duration(ret - e.InvokeNS)
		r.LongestWait = max(r.LongestWait, d)
		if heal != 0 && e.InvokeNS > heal {
			r.LongestQuietWait = max(r.LongestQuietWait, d)
		}
		waits = append(waits, wait{e: e, invoke: e.InvokeNS, ret: e.ReturnNS})
	}
	hs := buildMholds(evs)
	var out []Violation
	for _, w := range waits {
		if w.e.Outcome != history.Deadlock {
			continue
		}
		r.Deadlocks++
		vs := judgeDeadlock(w, waits, hs)
		if len(vs) == 0 {
			r.Confirmed++
		}
		out = append(out, vs...)
	}
	return append(out, checkMexclusion(hs, "deadlock")...)
}

// judgeDeadlock checks one ErrDeadlock against the history.
func judgeDeadlock(v wait, waits []wait, hs []*mhold) []Violation {
	var out []Violation
	bad := func(format string, args ...any) {
		out = append(out, Violation{Checker: "deadlock", Lock: v.e.ID, Detail: fmt.Sprintf("%s's ErrDeadlock at %s (waiting for %s in %s since %s): ",
			v.e.Process, sec(v.e.ReturnNS), v.e.ID, v.e.Access, sec(v.e.InvokeNS)) + fmt.Sprintf(format, args...)})
	}
	if v.e.Reentrant {
		bad("a reentrant acquisition (its unit of work held %s already) was reported in a cycle", v.e.ID)
	}
	for _, m := range v.e.Cycle {
		if m.HeldIn != "" && compatible(m.Access, m.HeldIn) {
			bad("the reported cycle says %s waits for %s in %s held in %s by %s, a compatible pair", m.Process, m.ID, m.Access, m.HeldIn, m.HeldBy)
		}
		if w, ok := reentrantMember(v, m, waits); ok {
			bad("the reported cycle lists %s's wait for %s, a reentrant acquisition of its unit of work", w.e.Process, m.ID)
		}
	}
	if _, ok := cycleDuring(v, waits, hs); !ok {
		bad("no cycle of recorded waits and holds through %s existed at any instant of its wait (reported: %s)", v.e.Process, cycleString(v.e.Cycle))
	}
	return out
}

// reentrantMember finds the reentrant acquisition that a reported cycle
// member m can only mean: one of m's id by m's process near v's wait
// (within deadlockSlack), when that process had no other wait for the id
// during v's wait. A wait that was granted as v returned (v's release let
// it through) and followed at once by a reentrant acquisition of the same
// id is the member meant, not the reentrant one.
func reentrantMember(v wait, m history.CycleMember, waits []wait) (wait, bool) {
	var re wait
	found := false
	for _, w := range waits {
		if w.e.ID != m.ID || !sameProcess(m.Process, w.e.Process) {
			continue
		}
		if !w.e.Reentrant && w.invoke <= v.ret && v.invoke <= w.ret {
			return wait{}, false
		}
		if w.e.Reentrant && w.invoke <= v.ret+deadlockSlack && v.invoke-deadlockSlack <= w.ret {
			re, found = w, true
		}
	}
	return re, found
}

// sameProcess reports whether the Locker process id reported in a cycle
// (the worker's process, or it with a ":suffix" naming one of its Lockers)
// is the worker's.
func sameProcess(reported, worker string) bool {
	return reported == worker || strings.HasPrefix(reported, worker+":")
}

func cycleString(c []history.CycleMember) string {
	if len(c) == 0 {
		return "no members"
	}
	var parts []string
	for _, m := range c {
		parts = append(parts, fmt.Sprintf("%s waits for %s:%s held in %s by %s", m.Process, m.ID, m.Access, m.HeldIn, m.HeldBy))
	}
	return strings.Join(parts, "; ")
}

// cycleDuring looks for an instant t of v's wait at which the recorded
// waits and possible holds form a cycle through v's process: an edge A → B
// when A waits at t for an id B possibly holds at t in an incompatible
// access. The intervals are closed and widened by deadlockSlack, so some
// edge set is present all at once exactly when the latest start among its
// intervals precedes the earliest end: trying every interval start inside
// v's wait (and v's own start) tries every such instant.
func cycleDuring(v wait, waits []wait, hs []*mhold) (int64, bool) {
	lo, hi := v.invoke-deadlockSlack, sat(v.ret, deadlockSlack)
	var ws []wait
	for _, w := range waits {
		if w.invoke-deadlockSlack <= hi && lo <= sat(w.ret, deadlockSlack) {
			ws = append(ws, w)
		}
	}
	var near []*mhold
	for _, h := range hs {
		if h.mayFrom-deadlockSlack <= hi && lo <= sat(h.mayTo, deadlockSlack) {
			near = append(near, h)
		}
	}
	ts := []int64{max(lo, v.invoke)}
	for _, w := range ws {
		ts = append(ts, w.invoke-deadlockSlack)
	}
	for _, h := range near {
		ts = append(ts, h.mayFrom-deadlockSlack)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	for _, t := range ts {
		if t < lo || t > hi {
			continue
		}
		if onCycle(v.e.Process, t, ws, near) {
			return t, true
		}
	}
	return 0, false
}

// onCycle reports whether process p is on a cycle of wait-for edges at t.
func onCycle(p string, t int64, ws []wait, hs []*mhold) bool {
	edges := map[string][]string{}
	for _, w := range ws {
		if t < w.invoke-deadlockSlack || t > sat(w.ret, deadlockSlack) {
			continue
		}
		for _, h := range hs {
			if h.id != w.e.ID || h.process == w.e.Process || compatible(w.e.Access, h.access) {
				continue
			}
			if t < h.mayFrom-deadlockSlack || t > sat(h.mayTo, deadlockSlack) {
				continue
			}
			edges[w.e.Process] = append(edges[w.e.Process], h.process)
		}
	}
	seen := map[string]bool{}
	var reach func(string) bool
	reach = func(a string) bool {
		for _, b := range edges[a] {
			if b == p {
				return true
			}
			if !seen[b] {
				seen[b] = true
				if reach(b) {
					return true
				}
			}
		}
		return false
	}
	return reach(p)
}

// sat adds d to t unless t is history.Never.
func sat(t, d int64) int64 {
	if t == history.Never {
		return t
	}
	return t + d
}

// checkMexclusion: two holds of one id by different processes in
// incompatible accesses must not certainly overlap.
func checkMexclusion(hs []*mhold, checker string) []Violation {
	byID := map[string][]*mhold{}
	for _, h := range hs {
		byID[h.id] = append(byID[h.id], h)
	}
	var out []Violation
	for id, l := range byID {
		sort.Slice(l, func(i, j int) bool { return l[i].from < l[j].from })
		for i, a := range l {
			for _, b := range l[i+1:] {
				if b.from >= a.to {
					break
				}
				if a.process == b.process || compatible(a.access, b.access) || b.from >= b.to {
					continue
				}
				out = append(out, Violation{Checker: checker, Lock: id, Detail: fmt.Sprintf(
					"%s held %s in %s from %s until at least %s; %s held it in %s from %s until at least %s",
					a.process, id, a.access, sec(a.from), sec(a.to), b.process, b.access, sec(b.from), sec(b.to))})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Detail < out[j].Detail })
	return out
}
