package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep/robustness/check"
	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/nemesis"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// result is one segment's outcome.
type result struct {
	seg      segment
	events   int
	ops      int
	unknown  int
	findings []finding // violations, with the checker that found them
	ok       bool      // as expected (clean fleet, or control caught)
	verdict  string
	elapsed  time.Duration
	// moves are the lockd clients' fail-overs; lostByMover the locks a
	// client that could fail over lost to a lockd event.
	moves       check.MoveReport
	lostByMover int
	// handoffs are the local handoffs the check counted.
	handoffs int
}

type finding struct{ checker, lock, detail string }

// controlWindows is how many windows a control gets to be caught in: its
// length each, its schedule each, its workers on fresh seeds. A control
// fails only if no window brings a violation its checkers catch. A fleet
// gets one window: any violation in it fails the run. Five, because
// ctl-planted's defect did not bite in 1 of the 5 windows logged with its
// workers pinned (at 1 in 4, 1 run in 1,000 would miss all five;
// a missed window costs about 22 s).
const controlWindows = 5

// missedControl reports whether rs is a control's window that its
// checkers did not catch (none found a violation, or one that must did
// not), so that another window may.
func missedControl(rs result) bool {
	return rs.seg.control && !rs.ok && strings.HasPrefix(rs.verdict, "control NOT caught")
}

// runSegments plans every segment's schedule (printed first), then runs
// them one after the other.
func (r *runner) runSegments(ctx context.Context, segs []segment) ([]result, error) {
	lengths, windows := r.lengths(segs)
	plans, missing, err := r.plan(segs)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		fmt.Fprintf(r.out, " kinds NOT scheduled (give more --minutes): %s\n", strings.Join(missing, ", "))
	} else {
		fmt.Fprintf(r.out, " every kind asked for is scheduled at least once (%d kinds)\n", len(r.o.kinds))
	}
	t := time.Now()
	if err := r.keyspaces(ctx, segs); err != nil {
		return nil, err
	}
	r.logf("%d keyspaces ready in %v", keyspaceCount(segs), time.Since(t).Round(100*time.Millisecond))
	var res []result
	for i := range segs {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		rs, err := r.runSegment(ctx, i, 1, &segs[i], plans[i], lengths[i], windows[i])
		// A control whose window brought no violation gets another, with
		// its workers on fresh seeds, up to controlWindows: a window too
		// short for the defect to bite says nothing of the checkers (the
		// model checks' controls get several searches for the same reason).
		var missed []string
		for w := 2; err == nil && missedControl(rs) && w <= controlWindows; w++ {
			missed = append(missed, fmt.Sprintf("window %d: %s", w-1, strings.TrimPrefix(rs.verdict, "control ")))
			r.logf("segment %s: %s; window %d of up to %d", segs[i].name, rs.verdict, w, controlWindows)
			rs, err = r.runSegment(ctx, i, w, &segs[i], plans[i], lengths[i], windows[i])
		}
		switch {
		case len(missed) > 0 && rs.ok:
			rs.verdict += fmt.Sprintf(" in window %d of up to %d (%s)", len(missed)+1, controlWindows, strings.Join(missed, "; "))
		case len(missed) > 0:
			rs.verdict += fmt.Sprintf(" in any of %d windows (%s; the last one's above)", len(missed)+1, strings.Join(missed, "; "))
		}
		if err != nil {
			rs.ok, rs.verdict = false, "not finished: "+err.Error()
		}
		res = append(res, rs)
		if err != nil {
			return res, fmt.Errorf("segment %s: %w", segs[i].name, err)
		}
	}
	return res, nil
}

// plan draws and prints every segment's schedule, and lists the kinds
// asked for that no segment drew.
func (r *runner) plan(segs []segment) (plans [][]nemesis.Event, missing []string, err error) {
	lengths, windows := r.lengths(segs)
	plans = make([][]nemesis.Event, len(segs))
	covered := map[nemesis.Kind]bool{}
	start := 0
	fmt.Fprintf(r.out, "schedule (seed %d):\n", r.o.seed)
	lockdStart := 0
	for i := range segs {
		seg := &segs[i]
		length, window := lengths[i], windows[i]
		if seg.lockd.clients > 0 && seg.lk == nil {
			seg.lk = r.newLockdSet(seg, i)
		}
		var evs []nemesis.Event
		if seg.events != nil {
			evs = seg.events(r, seg, window)
		} else {
			kinds := r.o.kinds
			if seg.kinds != nil {
				kinds = seg.kinds
			}
			ttl := seg.ttl
			if ttl == 0 {
				ttl = r.o.ttl
			}
			if kinds = clusterKinds(kinds); len(kinds) > 0 {
				evs, err = nemesis.Schedule(r.cluster, nemesis.Plan{
					Seed: r.o.seed, Window: window, Kinds: kinds, TTL: ttl, MaxSkew: r.o.maxSkew,
					Clients: r.clientPauser(seg), Start: start, Segment: i,
				})
				if err != nil {
					return nil, nil, err
				}
			}
			if seg.kinds == nil {
				start += len(evs)
			}
		}
		fmt.Fprintf(r.out, " segment %d %s (%v, faults in the first %v):\n", i+1, seg.name, length, window)
		if seg.evidence != "" {
			fmt.Fprintf(r.out, "  evidence: every worker and lockd at --evidence %s\n", seg.evidence)
		}
		if len(evs) == 0 {
			fmt.Fprintln(r.out, "  (no nemesis)")
		}
		nemesis.Print(r.out, seg.name, evs)
		plans[i] = evs
		if err := r.planLockdTrack(seg, i, window, &lockdStart); err != nil {
			return nil, nil, err
		}
		for _, e := range append(evs, seg.lockdEvs...) {
			covered[nemesis.KindOf(e.Nemesis)] = true
		}
	}
	for _, k := range r.o.kinds {
		if !covered[k] {
			missing = append(missing, string(k))
		}
	}
	return plans, missing, nil
}

func (r *runner) runSegment(ctx context.Context, idx, attempt int, seg *segment, evs []nemesis.Event, length, window time.Duration) (result, error) {
	t0 := time.Now()
	res := result{seg: *seg}
	keyspace := keyspaceOf(seg)
	histDir := filepath.Join(r.outDir, fmt.Sprintf("%02d-%s", idx+1, seg.name))
	if attempt > 1 {
		histDir += fmt.Sprintf("-window%d", attempt)
	}
	if err := os.MkdirAll(histDir, 0o755); err != nil {
		return res, err
	}
	srv, err := register.StartAt("127.0.0.1:0", r.epoch)
	if err != nil {
		return res, err
	}
	defer srv.Close()
	if err := r.startLockds(ctx, seg, keyspace, histDir); err != nil {
		return res, err
	}
	defer r.stopLockds()
	ws, err := r.spawn(seg, idx+100*(attempt-1), keyspace, srv.URL(), histDir, length)
	setLive(ws, srv.Ops)
	if err != nil {
		return res, err
	}
	r.logf("segment %s: %d workers for %v, register %s", seg.name, len(ws), length, srv.URL())
	if seg.skew != 0 {
		b := nemesis.Bump(r.cluster, 2, seg.skew)
		if err := b.Inject(ctx); err != nil {
			return res, err
		}
		r.logf("segment %s: %s for the whole segment", seg.name, b.Name())
	}
	spans, faults := &spanRecorder{}, &spanRecorder{}
	evs = faults.wrapFaults(spans.wrap(evs))
	segStart := time.Now()
	var wg sync.WaitGroup
	if seg.rollout {
		wg.Add(1)
		go func() { defer wg.Done(); r.rollout(ctx, keyspace, ws, segStart, window) }()
	}
	evs = seg.lk.wrap(evs)
	track := r.runLockdTrack(ctx, seg, segStart)
	n, nerr := nemesis.Run(ctx, segStart, evs, r.logf)
	wg.Wait()
	tn, terr := track()
	n += tn
	nerr = errors.Join(nerr, terr)
	res.events = n
	r.events += n
	// The final heal: undo anything left, restart a killed node or lockd.
	if err := r.healAll(ctx); err != nil {
		return res, err
	}
	if err := r.healLockds(ctx); err != nil {
		return res, err
	}
	finalHeal := time.Now()
	partitions := spans.spans(r.epoch, finalHeal)
	faultSpans := faults.spans(r.epoch, finalHeal)
	if nerr != nil {
		r.logf("segment %s: nemesis: %v (healed; the segment goes on)", seg.name, nerr)
	}
	r.logf("segment %s: healed; quiet until the workers finish", seg.name)
	for _, w := range ws {
		select {
		case <-w.done:
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(length + 2*time.Minute):
			return res, fmt.Errorf("worker %s did not finish within %v of its duration", w.id, 2*time.Minute)
		}
		if w.err != nil {
			r.logf("segment %s: worker %s: %v (see %s)", seg.name, w.id, w.err, filepath.Join(histDir, w.id+".log"))
		}
	}
	setLive(nil, nil)
	r.stopLockds()
	failed := 0
	for _, w := range ws {
		if w.err != nil {
			failed++
		}
	}
	if failed == len(ws) {
		return res, fmt.Errorf("every worker failed (logs in %s)", histDir)
	}
	ops := srv.Ops()
	if err := register.Save(filepath.Join(histDir, history.RegisterFile), ops); err != nil {
		return res, err
	}
	if err := r.check(seg, histDir, ops, finalHeal, partitions, faultSpans, &res); err != nil {
		return res, err
	}
	res.elapsed = time.Since(t0)
	r.logf("segment %s: %s", seg.name, res.verdict)
	return res, nil
}

func keyspaceOf(seg *segment) string {
	if seg.keyspace != "" {
		return seg.keyspace
	}
	return "robust_" + strings.NewReplacer("+", "_", "-", "_").Replace(seg.name)
}

// keyspaces creates every segment's keyspace (RF 3: SimpleStrategy, or
// NetworkTopologyStrategy dc1: 2, dc2: 1 on two data centres) and tables and sets its
// initial phase, three at a time, before any fault runs.
func (r *runner) keyspaces(ctx context.Context, segs []segment) error {
	sem := make(chan struct{}, 3)
	errs := make([]error, len(segs))
	var wg sync.WaitGroup
	made := map[string]bool{} // a keyspace two segments share is made once, by the first
	for i := range segs {
		if made[keyspaceOf(&segs[i])] {
			continue
		}
		made[keyspaceOf(&segs[i])] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ks := keyspaceOf(&segs[i])
			if err := r.lockctl(ctx, ks, "schema", "apply", "--replication", r.cluster.Replication()); err != nil {
				errs[i] = err
				return
			}
			errs[i] = r.setPhase(ctx, ks, segs[i].phase)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// setPhase moves a fresh keyspace's migration phase to target, one step at
// a time from legacy (where an absent phase cell starts).
func (r *runner) setPhase(ctx context.Context, keyspace, target string) error {
	steps := map[string][]string{"legacy": nil, "combined": {"combined"}, "new": {"combined", "new"}}[target]
	for _, s := range steps {
		if err := r.lockctl(ctx, keyspace, "phase", "set", s); err != nil {
			return err
		}
	}
	return nil
}

// healAll undoes every fault and restarts a node a kill left down.
func (r *runner) healAll(ctx context.Context) error {
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	if err := nemesis.Cleanup(hctx, r.cluster); err != nil {
		return err
	}
	for _, n := range r.cluster.Nodes {
		if !r.cluster.Running(n.N) {
			r.logf("restarting node %d", n.N)
			if err := r.cluster.Start(hctx, n.N); err != nil {
				return err
			}
		}
	}
	return nil
}
