package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/robustness/check"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// check runs the checkers on one segment and decides whether it showed
// what it must: a fleet no violation; a control the violation it plants.
func (r *runner) check(seg *segment, histDir string, ops []register.Op, finalHeal time.Time, partitions, faults []check.Span, res *result) error {
	opts := check.Options{
		Partitions: partitions,
		// A fleet with DC-local locks must take them on both sides of
		// every DC partition.
		LocalProgress: seg.local > 0 && seg.expect == expectClean,
		HealNS:        finalHeal.Sub(r.epoch).Nanoseconds(),
		LivenessBound: r.livenessBound(seg),
		// Without client pauses a lost counter update can only come from
		// two holders at once: a violation. With them it is expected.
		StrictCounter: !r.pausesClients(seg),
		LockdEvents:   seg.lk.lockdEvents(finalHeal),
		LockdMovers:   seg.lk.movers(),
		// The cycle checker leaves the faults' time (and recovery) alone.
		Faults: faults,
	}
	if seg.expect == expectViolation || seg.expect == expectMeasure {
		opts.HealNS = 0 // a control's fleet may be wedged; liveness is not its point
	}
	rep, err := check.Run(histDir, ops, opts)
	if err != nil {
		return fmt.Errorf("check %s: %w", histDir, err)
	}
	fmt.Fprintf(r.out, "%s\n", indent(rep.Summary(), "  "+seg.name+" "))
	for _, v := range rep.Violations {
		if v.Checker == "harness" {
			// Workers and register disagree on the epoch: no time
			// comparison can be trusted, whatever the segment expects.
			return fmt.Errorf("check %s: the harness check failed (%s): the run's timing cannot be trusted", seg.name, v)
		}
	}
	res.ops = rep.Operations
	res.moves, res.lostByMover = rep.Moves, rep.LockdLostByMover
	res.unknown = rep.Unknown
	res.handoffs = rep.LocalHandoffs
	for _, v := range rep.Violations {
		res.findings = append(res.findings, finding{v.Checker, v.Lock, v.Detail})
	}
	switch seg.expect {
	case expectClean:
		res.ok = len(rep.Violations) == 0
		res.verdict = fmt.Sprintf("%d operations, %d unknown, %d violations", rep.Operations, rep.Unknown, len(rep.Violations))
		if len(rep.Scopes) > 0 {
			res.verdict += "; " + scopeVerdict(rep)
		}
	case expectMeasure:
		res.ok = true
		res.verdict = fmt.Sprintf("measured: %d violations (checkers: %s)", len(rep.Violations), strings.Join(rep.Checkers(), ", "))
	case expectViolation:
		res.ok = len(rep.Violations) > 0
		if missed := missedBy(seg.catchBy, rep.Checkers()); len(missed) > 0 {
			res.ok = false
			res.verdict = fmt.Sprintf("control NOT caught by %s (found by: %s)", strings.Join(missed, ", "), strings.Join(rep.Checkers(), ", "))
		} else if res.ok {
			res.verdict = fmt.Sprintf("control caught by %s (%d violations)", strings.Join(rep.Checkers(), ", "), len(rep.Violations))
		} else {
			res.verdict = "control NOT caught: no checker found a violation"
		}
	case expectCounterLoss:
		fenced := 0
		for _, v := range rep.Violations {
			if v.Checker != "counter" {
				fenced++
			}
		}
		res.ok = rep.CounterLostUpdates > 0 && fenced == 0
		res.verdict = fmt.Sprintf("unfenced counter lost %d updates, fenced register rejected %d stale writes, %d violations besides the counter",
			rep.CounterLostUpdates, rep.FencedRejected, fenced)
		if !res.ok {
			res.verdict = "control NOT as expected: " + res.verdict
		} else {
			res.verdict = "control caught by counter: " + res.verdict
		}
	}
	return nil
}

// livenessBound: after the final heal every worker acquires within this.
// A lock may be held by a paused-then-resumed holder for up to a TTL and
// queued behind the other workers' critical sections; nodes restarted by
// the heal need their reconnection.
func (r *runner) livenessBound(seg *segment) time.Duration {
	ttl := seg.ttl
	if ttl == 0 {
		ttl = r.o.ttl
	}
	return livenessBound(ttl)
}

// livenessBound for a TTL: a lock left by a holder that lost its lease
// frees within a TTL (its cells expire); a second TTL covers a queue ahead
// and the renewals in flight; 5 s covers reconnection to a restarted node.
func livenessBound(ttl time.Duration) time.Duration { return 2*ttl + 5*time.Second }

func (r *runner) pausesClients(seg *segment) bool {
	if seg.expect == expectCounterLoss {
		return true
	}
	if seg.events != nil {
		return false
	}
	kinds := r.o.kinds
	if seg.kinds != nil {
		kinds = seg.kinds
	}
	for _, k := range kinds {
		if k == "pause-client" {
			return true
		}
	}
	return false
}

// scopeVerdict is the per-scope line of a segment with data centres: holds
// per scope and data centre, those during DC partitions in brackets.
func scopeVerdict(rep check.Report) string {
	var parts []string
	for _, c := range rep.Scopes {
		parts = append(parts, fmt.Sprintf("%s %s %d (%d)", c.Scope, c.DC, c.Holds, c.InPartition))
	}
	return fmt.Sprintf("holds per scope and DC (during %v of DC partitions): %s", rep.PartitionTime.Round(time.Second), strings.Join(parts, ", "))
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
