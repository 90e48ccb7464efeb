//go:build integration

package cassandra_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// The concurrency scenarios the production C# implementation of the legacy
// lock is tested with, on real Cassandra: several lock ids, several lockers
// (processes) per id, many operations each, with
//
//   - a small TTL and a fast keepalive (renewal every TTL/6), and some
//     critical sections longer than the TTL, which only renewal keeps;
//   - a constant clock skew per locker of up to ±TTL/4 (clock.Offset);
//   - store failures injected with probability 0.01 before a request (it
//     never reaches Cassandra) and 0.01 after it (it was applied, the caller
//     hears lockstep.ErrUnknownOutcome), by model.Faulty around the real store.
//
// Each operation takes the lock, checks the store, updates a guarded counter
// and releases. The checks:
//
//	(a) while a holder holds, the owner rows, read through an undisturbed
//	    store, hold its cells: the legacy main row (legacy, combined) no
//	    other, the queue partition's owner cells (new, combined) none but
//	    contenders' passing claims that are gone within a TTL (see
//	    checkOwnerRows);
//	(b) nobody changes the guarded counter while another holds it: entering
//	    the critical section while a holder whose lease is not lost is inside
//	    is a double grant;
//	(c) the counter of each id ends at exactly lockers × operations;
//	(d) a released acquisition's cells are gone within the TTL of the
//	    release: no read started a TTL after Unlock began sees one.
//
// A holder that sees Lost() stops without touching the counter and repeats
// the operation, so (c) stays exact; lost leases are counted and logged.
const (
	scnIDs     = 3
	scnLockers = 4               // per id, each its own Locker and process id
	scnTTL     = 4 * time.Second // the smallest TTL accepted with the default MaxServerSkew
	scnRenew   = scnTTL / 8      // half the lease window, (4s − 1s − 1s)/4
	scnSkew    = scnTTL / 4      // each locker's clock is off by up to ±scnSkew
	scnFault   = 0.01            // per request, before and after
	scnLong    = scnTTL + scnTTL/2
	scnSlice   = 50 * time.Millisecond // how often a holder looks at Lost()
)

func TestScenarios(t *testing.T) {
	for _, sc := range []struct {
		mode lockstep.Mode
		ops  int // per locker
	}{
		// Legacy contenders back off up to a second after seeing the lock
		// held (listing 5), so legacy runs fewer operations in the same time.
		{lockstep.ModeNew, 16},
		{lockstep.ModeLegacy, 8},
		{lockstep.ModeCombined, 10},
	} {
		t.Run(sc.mode.String(), func(t *testing.T) {
			t.Parallel()
			runScenario(t, sc.mode, sc.ops)
		})
	}
}

// lockerConfig is what newModeLocker needs to build one process's locker.
type lockerConfig struct {
	ttl, renew time.Duration
	clock      lockstep.Clock
	process    string
	seed       uint64
	logger     *slog.Logger // nil: discard
}

// newModeLocker returns a locker of mode on s, configured as one process.
func newModeLocker(mode lockstep.Mode, s lockstep.Store, c lockerConfig) (locktest.Locker, error) {
	q := &queuelock.Options{TTL: c.ttl, Renew: c.renew, Clock: c.clock, ProcessID: c.process,
		Poll: 25 * time.Millisecond, Logger: c.logger}
	g := &shadowlock.Options{TTL: c.ttl, Renew: c.renew, Clock: c.clock, ProcessID: c.process,
		Rand: rand.New(rand.NewPCG(c.seed, 1)), Logger: c.logger}
	switch mode {
	case lockstep.ModeNew:
		return queuelock.New(s, q)
	case lockstep.ModeLegacy:
		return shadowlock.New(s, g)
	case lockstep.ModeCombined:
		return combined.New(s, &combined.Options{Queue: q, Legacy: g})
	}
	return nil, fmt.Errorf("no locker for mode %v", mode)
}

// scnStats counts what happened in one scenario, across its workers.
type scnStats struct {
	ops, lost, tryLocks, unlockErrs atomic.Int64
	transient                       atomic.Int64 // reads that saw a passing owner cell beside the holder's
	maxWait                         atomic.Int64 // ns
}

// scenario is one mode's run: its lockers, their fault injectors, a guard
// per lock id, and the errors the workers report.
type scenario struct {
	mode    lockstep.Mode
	ops     int // per locker
	seed    uint64
	raw     lockstep.Store // undisturbed, for the checks
	stats   scnStats
	guards  [scnIDs]guard
	faults  []*model.Faulty
	lockers []locktest.Locker
	workers []*worker

	cancel context.CancelFunc
	errMu  sync.Mutex
	errs   []error
}

func runScenario(t *testing.T, mode lockstep.Mode, ops int) {
	start := time.Now()
	sc := &scenario{mode: mode, ops: ops, seed: uint64(start.UnixNano())}
	t.Logf("seed %d", sc.seed)
	sc.raw = locktest.Prefixed(newStore(t), fmt.Sprintf("scn/%x/%v/", sc.seed, mode))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sc.cancel = cancel
	sc.build(t)
	var wg sync.WaitGroup
	for _, w := range sc.workers {
		wg.Go(func() {
			if err := w.run(ctx); err != nil {
				sc.fail(fmt.Errorf("%s locker %s: %w", w.id, w.process, err))
			}
		})
	}
	wg.Wait()
	// The faults stop before Close, as a network heals: Close retries the
	// releases whose deletes failed, and on a healthy store every retry must
	// succeed. With the faults on, a retry may itself draw one (p ≈ 0.02).
	for _, f := range sc.faults {
		f.SetEnabled(false)
	}
	for _, l := range sc.lockers {
		if err := l.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	}
	sc.report(t, time.Since(start))
}

// build creates scnLockers lockers per lock id, each on its own Faulty
// around the shared store, with its own process id, clock skew and random
// streams, and a worker for each.
func (sc *scenario) build(t *testing.T) {
	rng := rand.New(rand.NewPCG(sc.seed, 0))
	for i := range scnIDs {
		for j := range scnLockers {
			n := uint64(i*scnLockers + j)
			faulty, err := model.NewFaulty(sc.raw, model.FaultConfig{FailBefore: scnFault, FailAfter: scnFault,
				Rand: rand.New(rand.NewPCG(sc.seed, 1+n))})
			if err != nil {
				t.Fatal(err)
			}
			skew := time.Duration(rng.Int64N(int64(2*scnSkew)+1)) - scnSkew
			process := fmt.Sprintf("scn-%d-%d", i, j)
			l, err := newModeLocker(sc.mode, faulty, lockerConfig{
				ttl: scnTTL, renew: scnRenew, clock: clock.Offset{Base: &clock.Local{}, By: skew},
				process: process, seed: sc.seed + n,
			})
			if err != nil {
				t.Fatal(err)
			}
			w := &worker{mode: sc.mode, id: fmt.Sprintf("res-%d", i), process: process, locker: l, raw: sc.raw,
				guard: &sc.guards[i], stats: &sc.stats, rng: rand.New(rand.NewPCG(sc.seed, 100+n)), ops: sc.ops, longAt: -1}
			if j < 2 { // two critical sections per id outlive the TTL
				w.longAt = sc.ops/3 + j*sc.ops/3
			}
			sc.faults, sc.lockers, sc.workers = append(sc.faults, faulty), append(sc.lockers, l), append(sc.workers, w)
		}
	}
}

// fail records a worker's error and stops the others: one violation is
// enough, and the cancellations it causes are not reported again.
func (sc *scenario) fail(err error) {
	sc.errMu.Lock()
	defer sc.errMu.Unlock()
	if len(sc.errs) > 0 && errors.Is(err, context.Canceled) {
		return
	}
	sc.errs = append(sc.errs, err)
	sc.cancel()
}

// report checks (c) and that faults were injected, and logs the counts.
func (sc *scenario) report(t *testing.T, took time.Duration) {
	for _, err := range sc.errs {
		t.Error(err)
	}
	for i := range sc.guards {
		if got, want := sc.guards[i].value, scnLockers*sc.ops; got != want && len(sc.errs) == 0 {
			t.Errorf("res-%d: counter %d, want %d", i, got, want) // (c)
		}
	}
	var before, after int64
	for _, f := range sc.faults {
		before, after = before+f.Stats().Before, after+f.Stats().After
	}
	st := &sc.stats
	t.Logf("%v: %d ops on %d ids × %d lockers in %.1fs; %d by TryLock; %d leases lost and redone; "+
		"%d unlock errors; %d reads saw a passing contender's owner cell; faults injected: %d before, %d after; longest wait %v",
		sc.mode, st.ops.Load(), scnIDs, scnLockers, took.Seconds(), st.tryLocks.Load(), st.lost.Load(), st.unlockErrs.Load(),
		st.transient.Load(), before, after, time.Duration(st.maxWait.Load()).Round(time.Millisecond))
	if len(sc.errs) == 0 && (before == 0 || after == 0) {
		t.Errorf("no faults injected (before %d, after %d): the scenario did not exercise failures", before, after)
	}
}

// worker is one locker's loop over its operations on one id.
type worker struct {
	mode    lockstep.Mode
	id      string
	process string
	locker  locktest.Locker
	raw     lockstep.Store // undisturbed, for the checks
	guard   *guard
	stats   *scnStats
	rng     *rand.Rand
	ops     int
	longAt  int // the operation whose critical section outlives the TTL; -1 none
}

func (w *worker) run(ctx context.Context) error {
	for done := 0; done < w.ops; {
		ok, err := w.op(ctx, done == w.longAt)
		if err != nil {
			return err
		}
		if ok {
			done++
			w.stats.ops.Add(1)
		} else {
			w.stats.lost.Add(1)
		}
	}
	return nil
}

// op takes the lock, runs the critical section and releases. It reports
// false if the lease was lost, so the operation must be repeated, and an
// error for a violation or a failed acquisition.
func (w *worker) op(ctx context.Context, long bool) (bool, error) {
	h, err := w.acquire(ctx)
	if err != nil {
		return false, err
	}
	committed, err := w.critical(ctx, h, long)
	if err != nil {
		_ = h.Unlock(context.WithoutCancel(ctx))
		return false, err
	}
	released := time.Now()
	if err := h.Unlock(context.WithoutCancel(ctx)); err != nil {
		// An injected fault, or ErrLost: the cells expire by themselves.
		w.stats.unlockErrs.Add(1)
	}
	if err := awaitGone(ctx, w.raw, w.id, ownersOf(h), released, scnTTL); err != nil { // (d)
		return false, err
	}
	return committed, nil
}

// acquire takes the lock, a quarter of the time trying TryLock first.
func (w *worker) acquire(ctx context.Context) (lockstep.Lock, error) {
	start := time.Now()
	defer func() {
		d := int64(time.Since(start))
		for m := w.stats.maxWait.Load(); d > m && !w.stats.maxWait.CompareAndSwap(m, d); m = w.stats.maxWait.Load() {
		}
	}()
	if w.rng.IntN(4) == 0 {
		h, err := w.locker.TryLock(ctx, w.id)
		if err == nil {
			w.stats.tryLocks.Add(1)
			return h, nil
		}
		// ErrLocked, or a store error: TryLock left nothing held.
	}
	h, err := w.locker.Lock(ctx, w.id)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	return h, nil
}

// critical is the critical section: it enters the guard, checks the owner
// row, holds for a few milliseconds (or longer than the TTL) watching Lost(),
// and commits the counter increment unless the lease was lost.
func (w *worker) critical(ctx context.Context, h lockstep.Lock, long bool) (bool, error) {
	seen, err := w.guard.enter(h) // (b)
	if err != nil {
		return false, err
	}
	transient, err := checkOwnerRows(ctx, w.raw, w.id, w.mode, h, scnTTL) // (a)
	if err != nil {
		w.guard.abandon(h)
		return false, err
	}
	w.stats.transient.Add(int64(transient))
	hold := time.Duration(w.rng.Int64N(int64(10 * time.Millisecond)))
	if long {
		hold = scnLong
	}
	for end := time.Now().Add(hold); time.Now().Before(end) && !isLost(h); {
		if err := (&clock.Local{}).Sleep(ctx, min(scnSlice, time.Until(end))); err != nil {
			w.guard.abandon(h)
			return false, err
		}
	}
	return w.guard.leave(h, seen)
}
