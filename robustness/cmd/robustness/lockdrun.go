package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/robustness/check"
	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

// The runner's lockd steps (lockd.go has the lockds themselves).

// clusterKinds are the kinds of ks that the cluster's schedule draws: all
// but the lockd nemeses, which the lockd track draws.
func clusterKinds(ks []nemesis.Kind) []nemesis.Kind {
	var out []nemesis.Kind
	for _, k := range ks {
		if !nemesis.IsLockd(k) {
			out = append(out, k)
		}
	}
	return out
}

// planLockdTrack draws and prints seg's lockd track, when it has one:
// the lockd kinds asked for, rotating across the segments that have a
// track from *start on (advanced by the events drawn), within window.
func (r *runner) planLockdTrack(seg *segment, idx int, window time.Duration, start *int) error {
	if seg.lk == nil || !seg.lockd.track {
		return nil
	}
	var kinds []nemesis.Kind
	for _, k := range r.o.kinds {
		if nemesis.IsLockd(k) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return nil
	}
	if w := lockdWindow(seg.lockd.lockTTL); seg.lockd.sessionTTL > w {
		return fmt.Errorf("segment %s: lockd session TTL %v is longer than lockd's lease window %v (lock TTL %v): a client would learn of a paused lockd's loss too late",
			seg.name, seg.lockd.sessionTTL, w, seg.lockd.lockTTL)
	}
	evs, err := nemesis.LockdSchedule(nemesis.LockdPlan{Seed: r.o.seed, Window: window, Kinds: kinds,
		Lockds: seg.lk, Count: len(seg.lk.procs), Clients: seg.lk.clients,
		LockTTL: seg.lockd.lockTTL, SessionTTL: seg.lockd.sessionTTL, Start: *start, Segment: idx})
	if err != nil {
		return err
	}
	*start += len(evs)
	seg.lockdEvs = evs
	fmt.Fprintf(r.out, "  lockd track (beside the above; workers %s through lockds l1..l%d, lock TTL %v, session TTL %v):\n",
		strings.Join(seg.lk.clients, ", "), len(seg.lk.procs), seg.lockd.lockTTL, seg.lockd.sessionTTL)
	nemesis.Print(r.out, seg.name+" lockd", evs)
	return nil
}

// startLockds starts seg's lockds on keyspace, if it has any, for a
// window whose histories go to histDir.
func (r *runner) startLockds(ctx context.Context, seg *segment, keyspace, histDir string) error {
	if seg.lk == nil {
		return nil
	}
	seg.lk.window(histDir)
	r.lockds = seg.lk
	t := time.Now()
	if err := seg.lk.start(ctx, keyspace); err != nil {
		return err
	}
	var addrs []string
	for _, p := range seg.lk.procs {
		addrs = append(addrs, fmt.Sprintf("l%d %s", p.n, p.addr))
	}
	r.logf("segment %s: %d lockds up in %v: %s", seg.name, len(seg.lk.procs), time.Since(t).Round(100*time.Millisecond), strings.Join(addrs, ", "))
	return nil
}

// stopLockds stops the running segment's lockds and adds up its lockd
// nemeses; it may be called again.
func (r *runner) stopLockds() {
	s := r.lockds
	if s == nil {
		return
	}
	r.lockds = nil
	s.stop()
	if r.lockdCounts == nil {
		r.lockdCounts = map[nemesis.Kind]int{}
	}
	s.mu.Lock()
	for k, n := range s.counts {
		r.lockdCounts[k] += n
	}
	s.mu.Unlock()
}

// runLockdTrack plays seg's lockd track from start beside the cluster's
// schedule; the function it returns waits for the track and says how many
// events it injected.
func (r *runner) runLockdTrack(ctx context.Context, seg *segment, start time.Time) func() (int, error) {
	if seg.lk == nil || len(seg.lockdEvs) == 0 {
		return func() (int, error) { return 0, nil }
	}
	evs := seg.lk.wrap(seg.lockdEvs)
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := nemesis.Run(ctx, start, evs, r.logf)
		done <- result{n, err}
	}()
	return func() (int, error) {
		res := <-done
		if res.err != nil {
			res.err = fmt.Errorf("lockd track: %w", res.err)
		}
		return res.n, res.err
	}
}

// healLockds undoes what the lockd nemeses left in the running segment.
func (r *runner) healLockds(ctx context.Context) error {
	if r.lockds == nil {
		return nil
	}
	return r.lockds.heal(ctx)
}

// lockdSummary prints how many lockd nemeses ran, by kind.
func (r *runner) lockdSummary() {
	if len(r.lockdCounts) == 0 {
		return
	}
	var parts []string
	for _, k := range nemesis.LockdKinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.lockdCounts[k]))
	}
	fmt.Fprintf(r.out, "robustness: lockd nemeses (fleets and controls): %s\n", strings.Join(parts, ", "))
}

// moveSummary prints the fleets' lockd fail-overs (the controls' planted
// moves left out), the line CI greps: moves by language, the moves' times
// from the client noticing its lockd had failed to the move's end, the
// locks kept across them, and the locks lost to a lockd event by a client
// that could fail over (each a lockd-loss violation).
func (r *runner) moveSummary(res []result) {
	var m check.MoveReport
	lost, any := 0, false
	for _, s := range res {
		if s.seg.control || s.seg.lockd.clients == 0 {
			continue
		}
		any = true
		m.Add(s.moves)
		lost += s.lostByMover
	}
	if !any {
		return
	}
	fmt.Fprintf(r.out, "robustness: lockd fail-overs %d (go %d, python %d), move p50 %d ms p99 %d ms, locks kept %d, lost by a client that could fail over %d\n",
		m.Moves, m.Go, m.Python, m.Quantile(0.5).Milliseconds(), m.Quantile(0.99).Milliseconds(), m.Kept, lost)
}

// ctlLockdIgnoresLost is the lockd control, two defects planted in the
// workers (the clients are the shipped ones), among three in-process
// workers on two locks:
//
//   - a Go client of lockd l1 alone that ignores its locks' Lost channels
//     (rbworker --plant lockd-ignores-lost) and works on, writing the
//     registers, until Unlock says the lock was lost; it holds 7 s. l1 is
//     paused first, for 6 s, right after it acquired: the paused lockd's
//     cells expire (lock TTL 4 s) and a waiting in-process worker takes
//     the lock while the client, ignoring Lost, works on. The mutex model
//     must catch the overlap;
//   - a Python client given both lockds, starting on l2, whose moves skip
//     the adoption (lockd_worker --plant skip-adopt), holding an id of its
//     own (solo-0, 7 s at a time, so nearly always). Once l1 is back, l2
//     is paused for 2 s (twice the session TTL): the client moves to l1
//     carrying no lock, so the lock it held is lost with its time ahead.
//     The lockd-loss checker must catch a lock lost by a client that could
//     fail over.
//
// Each defect has its own lockd and pause, so that one window shows both:
// with one pause for both, a window caught only the client that happened
// to hold when it struck.
//
// The segment has a fixed length of 15 s, outside --minutes' shares, and
// reuses the new fleet's keyspace (phase new), so that it costs CI 15 s
// and no keyspace.
//
// In the same window, two lock-manager workers added to the four form
// cycles of two in every slot with deadlock detection planted away
// (rbworker --lockman-plant no-detection): each cycle lasts until their
// Lock calls time out (8 s), past the cycle checker's bound (5 s). The
// other checkers see nothing wrong in their history (no ErrDeadlock, no
// overlap) and liveness is not judged in a control, so only the cycle
// checker catches it. The run reports whether it did, but only mutex and
// lockd-loss must catch this control: a cycle is certain only while both
// of its holds are, and under load a held lock's lease can lapse during
// the 8 s wait (one run at load 6-7: both workers' first locks were lost,
// the cycle left certain for 2.9 s), which is no failure of detection.
// The cycle checker's unit tests hold its teeth.
var ctlLockdIgnoresLost = segment{name: "ctl-lockd-ignores-lost", modes: []string{"new"}, phase: "new", locks: 2, ttl: 4 * time.Second,
	keyspace: "robust_new", length: 15 * time.Second, plant: "lockd-ignores-lost",
	lockman: 2, extra: 3, lockmanPlant: "no-detection", lockmanPlan: "P", catchBy: []string{"mutex", "lockd-loss"},
	lockd: lockdSetup{clients: 2, single: 1, python: 1, pyPlant: "skip-adopt", pyLockPrefix: "solo-", pyLocks: 1, failoverOn: 2,
		lockTTL: 4 * time.Second, sessionTTL: time.Second, minHold: 7 * time.Second, hold: 7 * time.Second, fresh: true},
	events: func(r *runner, seg *segment, window time.Duration) []nemesis.Event {
		return []nemesis.Event{
			{At: 500 * time.Millisecond, Hold: seg.lockd.lockTTL + 2*time.Second, Nemesis: &nemesis.PauseLockd{L: seg.lk, N: 1, Wait: 3 * time.Second}},
			{At: 7 * time.Second, Hold: 2 * seg.lockd.sessionTTL, Nemesis: &nemesis.PauseLockd{L: seg.lk, N: 2, Wait: time.Second}},
		}
	},
	expect: expectViolation, control: true}

// keyspaceCount is how many keyspaces segs use.
func keyspaceCount(segs []segment) int {
	ks := map[string]bool{}
	for i := range segs {
		ks[keyspaceOf(&segs[i])] = true
	}
	return len(ks)
}
