package check

import (
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// mutexInput is one operation of the leased-mutex model.
type mutexInput struct {
	kind    string // acquire, release, expire
	process int    // index into the lock's processes, from 1
	hold    *hold
}

// mutexModel is a leased mutex: its state is the holder's index, 0 when
// free.
var mutexModel = porcupine.Model{
	Init: func() any { return 0 },
	Step: func(state, input, _ any) (bool, any) {
		s, in := state.(int), input.(mutexInput)
		switch in.kind {
		case "acquire":
			return s == 0, in.process
		default: // release, expire
			return s == in.process, 0
		}
	},
	Hash: func(state any) uint64 { return uint64(state.(int)) },
	DescribeState: func(state any) string {
		if state.(int) == 0 {
			return "free"
		}
		return fmt.Sprintf("held by client %d", state.(int)-1)
	},
	Equal: func(a, b any) bool { return a == b },
	DescribeOperation: func(input, _ any) string {
		in := input.(mutexInput)
		return fmt.Sprintf("%s %s token %d", in.kind, in.hold.process, in.hold.token)
	},
}

// mutexOps turns one lock's holds into porcupine operations.
func mutexOps(hs []*hold) []porcupine.Operation {
	procs := map[string]int{}
	var ops []porcupine.Operation
	for _, h := range hs {
		p, ok := procs[h.process]
		if !ok {
			p = len(procs) + 1
			procs[h.process] = p
		}
		op := func(kind string, call, ret int64) porcupine.Operation {
			return porcupine.Operation{ClientId: p - 1, Input: mutexInput{kind, p, h}, Call: call, Return: ret}
		}
		ops = append(ops, op("acquire", h.acquire.InvokeNS, h.acquire.ReturnNS))
		switch h.end {
		case endRelease:
			ops = append(ops, op("release", h.endInvoke, h.endReturn))
		case endLost:
			ops = append(ops, op("expire", h.endInvoke, h.endReturn))
		case endOpen:
			ops = append(ops, op("expire", h.lastDeadline(), history.Never))
		}
	}
	return ops
}

// checkMutex runs the model on each lock id, with its own timeout. With
// visualize set, a lock whose history is illegal gets porcupine's HTML
// rendering there, mutex-<lock>.html.
func checkMutex(hs []*hold, timeout time.Duration, visualize string, r *Report) []Violation {
	byLock := map[string][]*hold{}
	var locks []string
	for _, h := range hs {
		if byLock[h.lock] == nil {
			locks = append(locks, h.lock)
		}
		byLock[h.lock] = append(byLock[h.lock], h)
	}
	sort.Strings(locks)
	var out []Violation
	for _, lock := range locks {
		start := time.Now()
		res, info := porcupine.CheckOperationsVerbose(mutexModel, mutexOps(byLock[lock]), timeout)
		r.MutexTime += time.Since(start)
		switch res {
		case porcupine.Illegal:
			detail := explainOverlap(byLock[lock])
			if visualize != "" {
				path := filepath.Join(visualize, "mutex-"+lock+".html")
				if err := porcupine.VisualizePath(mutexModel, info, path); err != nil {
					detail += fmt.Sprintf(" (no visualization: %v)", err)
				} else {
					detail += " (see " + path + ")"
				}
			}
			out = append(out, Violation{Checker: "mutex", Lock: lock, Detail: detail})
		case porcupine.Unknown:
			out = append(out, Violation{Checker: "mutex-undecided", Lock: lock,
				Detail: fmt.Sprintf("porcupine found no answer within %v over %d holds; raise Options.Timeout", timeout, len(byLock[lock]))})
		}
	}
	return out
}

// endLB is the earliest instant h can have stopped holding.
func (h *hold) endLB() int64 {
	if h.end == endOpen {
		return h.lastDeadline()
	}
	return h.endInvoke
}

// explainOverlap names two holds that certainly overlapped, if there are
// any: both had returned from Lock before either could have ended. Porcupine
// may also reject histories with no such pair (a chain of near-overlaps);
// then the detail says so.
func explainOverlap(hs []*hold) string {
	sorted := append([]*hold(nil), hs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].acquire.ReturnNS < sorted[j].acquire.ReturnNS })
	for i, a := range sorted {
		for _, b := range sorted[i+1:] {
			if b.acquire.ReturnNS >= a.endLB() {
				break // sorted by acquisition: later ones start later still
			}
			if a.process == b.process {
				continue
			}
			return fmt.Sprintf("%s (%s, token %d) held from %s until at least %s; %s (%s, token %d) acquired at %s",
				a.process, a.mode, a.token, sec(a.acquire.ReturnNS), sec(a.endLB()), b.process, b.mode, b.token, sec(b.acquire.ReturnNS))
		}
	}
	return fmt.Sprintf("no linearization of %d holds as a leased mutex (no single pair certainly overlaps; a chain of holds does)", len(hs))
}

// sec formats ns since the epoch as seconds.
func sec(ns int64) string {
	if ns == history.Never {
		return "never"
	}
	return fmt.Sprintf("%.3fs", float64(ns)/1e9)
}
