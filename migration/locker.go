package migration

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/cohort"
	"github.com/lockstep-go/lockstep/internal/deadlock"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/migration/census"
)

// ErrStaleCensus is wrapped by an acquisition's error when this process's
// census heartbeat is stale.
var ErrStaleCensus = errors.New("migration: census heartbeat is stale")

// ModeError is returned when the flag's mode is not allowed in the phase.
type ModeError struct {
	ID         string // the lock id asked for
	Process    string
	Configured lockstep.Mode
	Phase      Phase
}

func (e *ModeError) Error() string {
	return fmt.Sprintf("migration: process %s refuses to lock %q: configured mode %v is incompatible with fleet phase %v (allowed: %v); "+
		"set the process's flag to an allowed mode, or move the phase towards %v with lockctl phase set (one step at a time)",
		e.Process, e.ID, e.Configured, e.Phase, e.Phase.allowed(), e.Configured)
}

// Unwrap returns lockstep.ErrIncompatibleMode.
func (e *ModeError) Unwrap() error { return lockstep.ErrIncompatibleMode }

// Locker takes locks in the mode its flag gives, as the phase allows. One
// Locker is one process; safe for concurrent use.
type Locker struct {
	store lockstep.Store
	clock lockstep.Clock
	flag  FlagSource // keepLastGood's: a mode it returns without error is valid
	cfg   config
	algs  algorithms
	hb    *heartbeat

	tables []string // the lock tables of both algorithms, for Ready

	cacheMu sync.Mutex
	cache   phaseCache

	// m is the lock manager over this Locker's mode switch (modeSwitch):
	// groups, hierarchy, reentrancy, deadlock waits, the calls in flight
	// and the locks held that Close ends and releases.
	m *manager.Locker
}

var (
	_ lockstep.GroupLocker = (*Locker)(nil)
	_ lockstep.UnitLocker  = (*Locker)(nil)
)

// checkFleetStore refuses a nil store and a DC-local one (lockstep.ScopeOf):
// the census and the phase row are the whole fleet's.
func checkFleetStore(store lockstep.Store) error {
	if store == nil {
		return &lockstep.ConfigError{Field: "Store", Reason: "nil store: pass a cassandra.Store (cassandra.New) or, in tests, a model.Store"}
	}
	if s := lockstep.ScopeOf(store); !s.IsGlobal() {
		return &lockstep.ScopeError{Locker: "migration", Scope: s, Reason: "the census and the phase row are the whole fleet's, " +
			"and the migration moves global locks (the legacy format has no room for a data centre): build it on a global " +
			"store (cassandra.New without WithLocalDC); DC-local locks are queuelock's, on a store of their own"}
	}
	return nil
}

// phaseCache is the last phase the guard read with the census published.
type phaseCache struct {
	valid      bool
	phase      Phase
	readAt     int64  // elapsed µs, when the read started
	answeredAt int64  // elapsed µs, when its answer arrived
	epoch      uint64 // heartbeat epoch of the read
	written    uint64 // heartbeat version published when the read started
}

// New returns a Locker on store with flag as its mode source. A DC-local
// store (lockstep.ScopeOf) is refused with an error wrapping
// lockstep.ErrInvalidConfig: the census and the phase are fleet-wide.
func New(store lockstep.Store, flag FlagSource, opts *Options) (*Locker, error) {
	if err := checkFleetStore(store); err != nil {
		return nil, err
	}
	if flag == nil {
		return nil, &lockstep.ConfigError{Field: "FlagSource", Reason: "nil flag source: pass Static, Env, File, a PhaseFlag or your own"}
	}
	p, err := opts.process().Resolve()
	if err != nil {
		return nil, err
	}
	cfg, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	o := deref.Of(opts)
	if flag, err = keepLastGood(flag, &flagOptions{StaleFor: o.FlagStaleFor, Clock: p.Clock, Logger: p.Logger}); err != nil {
		return nil, err
	}
	algs, err := newAlgorithms(store, p, opts, cfg.knobs)
	if err != nil {
		algs.close(context.Background())
		return nil, err
	}
	l := &Locker{store: store, clock: p.Clock, flag: flag, cfg: cfg, algs: algs, tables: lockTables(opts)}
	// The detector's records live beside the locks: the census's skew is
	// the larger either algorithm was configured with.
	det, err := deadlock.ForLocker(store, p, cfg.census.MaxServerSkew, deref.Of(o.Queue).Rand, cfg.knobs.Manager.DeadlockKnobs())
	if err != nil {
		_ = algs.close(context.Background())
		return nil, err
	}
	var alg manager.Algorithm = modeSwitch{l}
	if cfg.local > 0 {
		if alg, err = cohort.New(alg, cohort.Options{Bound: cfg.local, Clock: p.Clock, Retain: cfg.retain,
			WatchEvery: l.algs.queue.Renew(), TestingKnobs: cfg.knobs.Cohort}); err != nil {
			_ = algs.close(context.Background())
			return nil, err
		}
	}
	if l.m, err = manager.NewLocker(alg, manager.Config{Name: "migration", Mode: lockstep.ModeUnknown, Clock: p.Clock, Observer: p.Observer,
		Separator: p.Separator, Detector: det, Knobs: cfg.knobs.Manager}); err != nil {
		_ = algs.close(context.Background())
		return nil, err
	}
	l.hb = newHeartbeat(store, p.Clock, cfg.censusTable, cfg.census, flag, p.Logger,
		census.Entry{Process: p.ID, Host: cfg.host, Version: cfg.version})
	l.hb.start()
	return l, nil
}

// Process returns the census's process id.
func (l *Locker) Process() string { return l.hb.self.Process }

// Entry returns this process's census entry now.
func (l *Locker) Entry() census.Entry {
	l.hb.mu.Lock()
	defer l.hb.mu.Unlock()
	e := l.hb.snapshot()
	e.Time = time.UnixMicro(l.clock.Now())
	return e
}

// Lock blocks until id is held in the flag's mode, if the phase allows it, or
// ctx is done (then errors.Is(err, ctx.Err()) holds).
func (l *Locker) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.m.Lock(ctx, id)
}

// TryLock is Lock failing with lockstep.ErrLocked instead of waiting.
func (l *Locker) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.m.TryLock(ctx, id)
}

// LockGroup takes every request as one lock, each member as Lock takes an id.
func (l *Locker) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.m.LockGroup(ctx, reqs...)
}

// TryLockGroup is LockGroup with TryLock's semantics for each member.
func (l *Locker) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.m.TryLockGroup(ctx, reqs...)
}

// Unit returns a new unit of work (lockstep.Unit) with comment.
func (l *Locker) Unit(comment string) lockstep.Unit { return l.m.Unit(comment) }

// modeSwitch is the migration's algorithm below its lock manager
// (manager.Algorithm): per acquisition, the flag's mode, the admission and
// that mode's algorithm.
type modeSwitch struct{ l *Locker }

// Take takes a.ID with the algorithm of the flag's mode, if the phase
// allows it: in mode new in a.Access, in modes legacy and combined
// exclusively (the legacy format has no other access; docs/algorithms.md,
// section 6.3), which the mode's algorithm tells the manager once the mode
// is chosen, so that a deadlock wait and the holding are published in the
// access really taken (section 8.5). The lock is bound to the census
// epoch it was admitted in (bind).
func (s modeSwitch) Take(ctx context.Context, a *manager.Acquisition) (held.Spec, error) {
	l := s.l
	m, err := l.flag.Mode(ctx)
	if err != nil {
		return held.Spec{}, fmt.Errorf("migration: mode flag: %w", err)
	}
	a.Mode = m
	l.hb.setConfigured(m)
	l.hb.begin(m)
	t, admitted, err := l.guard(ctx, a.ID, m)
	if err != nil {
		l.hb.finish(ticket{mode: m}, false)
		return held.Spec{}, err
	}
	a.AheadSince = max(1, admitted)
	if l.cfg.knobs.AheadBeforeAdmission {
		a.AheadSince = 0
	}
	// One flat id, taken by the mode's algorithm itself: groups, hierarchy
	// and reentrancy are this Locker's manager's alone, applied once, above
	// this call.
	spec, err := l.algs.of(m).Take(ctx, a)
	if err != nil {
		l.hb.finish(t, false)
		return held.Spec{}, err
	}
	if ok, _ := l.hb.trusted(t, false); !ok {
		// The census went stale while this call waited: the Controller may
		// have moved the phase without seeing it. Give the lock back.
		uerr := spec.Abandon(context.WithoutCancel(ctx))
		l.hb.finish(t, false)
		return held.Spec{}, errors.Join(l.hb.staleError(nil), uerr)
	}
	l.hb.finish(t, true)
	l.bind(&spec, t)
	return spec, nil
}

// Close closes the algorithms, once the manager has released every lock,
// and then the census heartbeat, deleting this process's entry.
func (s modeSwitch) Close(ctx context.Context) error {
	err := s.l.algs.close(ctx)
	s.l.hb.shutdown()
	return errors.Join(err, s.l.hb.remove(ctx))
}

// bind ties a lock taken in census epoch t to the census, adding no wrapper
// and no goroutine: the lock's loss signal fires when the epoch ends (the
// Controller might no longer see this process) and its Lost checks the
// heartbeat's own deadline, and its first Unlock stops counting it in the
// census. (Until its cells are deleted or expire, they still exclude every
// mode that could contend for them.)
func (l *Locker) bind(spec *held.Spec, t ticket) {
	loss := spec.Loss
	if !l.cfg.knobs.CensusUnbound {
		l.hb.bind(t, loss)
	}
	spec.OnStop = func() {
		l.hb.unbind(loss)
		l.hb.released(t.mode)
	}
}

// guard admits an acquisition in mode m, already registered with the
// heartbeat, following the Controller's protocol (docs/algorithms.md,
// section 7.2): the census must publish m before the phase is read, and
// the phase must allow m. It returns when (elapsed µs) the answer of the
// phase read that admitted it arrived: a fencing token drawn ahead serves
// the acquisition only if drawn after it (section 5.3, "Across modes").
// ctx bounds the census write and the phase reads.
func (l *Locker) guard(ctx context.Context, id string, m lockstep.Mode) (ticket, int64, error) {
	t := l.hb.current(m)
	if ok, _ := l.hb.trusted(t, true); ok {
		if ok, answeredAt := l.cachedAllows(t, m); ok {
			return t, answeredAt, nil
		}
	} else {
		// m is not yet published. Learn first whether the phase refuses m
		// at all, so that a refusal writes nothing.
		pc, err := readPhase(ctx, l.store, l.cfg.phaseTable)
		if err != nil {
			return t, 0, err
		}
		if !pc.phase.Allows(m) {
			return t, 0, &ModeError{ID: id, Process: l.Process(), Configured: m, Phase: pc.phase}
		}
		if err := l.hb.write(ctx); err != nil {
			if ctx.Err() != nil {
				return t, 0, fmt.Errorf("migration: publishing census entry: %w", ctx.Err())
			}
			return t, 0, l.hb.staleError(err)
		}
		t = l.hb.current(m)
	}
	ok, written := l.hb.trusted(t, true)
	if !ok {
		return t, 0, l.hb.staleError(nil)
	}
	// This read starts after a write publishing m completed: the lemma the
	// Controller's intent relies on.
	readAt := l.clock.Elapsed()
	pc, err := readPhase(ctx, l.store, l.cfg.phaseTable)
	if err != nil {
		return t, 0, err
	}
	answeredAt := l.clock.Elapsed()
	if !pc.phase.Allows(m) {
		return t, 0, &ModeError{ID: id, Process: l.Process(), Configured: m, Phase: pc.phase}
	}
	l.cacheMu.Lock()
	if !l.cache.valid || readAt >= l.cache.readAt {
		l.cache = phaseCache{valid: true, phase: pc.phase, readAt: readAt, answeredAt: answeredAt, epoch: t.epoch, written: written}
	}
	l.cacheMu.Unlock()
	return t, answeredAt, nil
}

// cachedAllows reports whether the cached phase may decide for t: read in the
// same epoch, after m was published, recently, and allowing m; and when the
// answer of that read arrived. A refusal is never taken from the cache.
func (l *Locker) cachedAllows(t ticket, m lockstep.Mode) (bool, int64) {
	l.cacheMu.Lock()
	c := l.cache
	l.cacheMu.Unlock()
	return c.valid && c.epoch == t.epoch && c.written >= l.hb.sinceOf(m) &&
		l.clock.Elapsed()-c.readAt < l.cfg.phaseCache.Microseconds() && c.phase.Allows(m), c.answeredAt
}

// Close ends the waits in flight, releases every lock still held and deletes
// the census entry.
func (l *Locker) Close(ctx context.Context) error { return l.m.Close(ctx) }

// close closes the legacy and queue Lockers (the combined one does not
// own them).
func (a algorithms) close(ctx context.Context) error {
	var errs []error
	if a.legacy != nil {
		errs = append(errs, a.legacy.Close(ctx))
	}
	if a.queue != nil {
		errs = append(errs, a.queue.Close(ctx))
	}
	return errors.Join(errs...)
}

// Waiting looks for a waiter of another owner of s's id in the queue
// lock's line (internal/cohort's Watcher, for Options.Retain): a new or
// combined lock's queue part. A legacy lock has no line to look at: it
// reports an error, and the retained lock is released at once.
func (s modeSwitch) Waiting(ctx context.Context, sp held.Spec) (bool, error) {
	if sp.Mode == lockstep.ModeLegacy {
		return false, errNoLine
	}
	return s.l.algs.queue.Waiting(ctx, sp)
}

// Extend draws a fresh block of n fencing tokens for s, a store hold the
// local-handoff layer extends past its bound (internal/cohort's Extender):
// a lock of mode new draws through the queue lock (its Extend, kept only if
// s's lease, bound to its census epoch, was open when the draw returned).
// A legacy or combined lock is refused with errNoExtension and draws
// nothing: the layer then releases it in the store.
func (s modeSwitch) Extend(ctx context.Context, sp held.Spec, n int) (int64, error) {
	if sp.Mode != lockstep.ModeNew {
		return 0, errNoExtension
	}
	return s.l.algs.queue.Extend(ctx, sp, n)
}

// errNoExtension is Extend's error for a legacy or combined lock.
var errNoExtension = errors.New("migration: only a lock of mode new extends its token block; a legacy or combined lock is released at its bound")

// errNoLine is Waiting's error for a legacy lock.
var errNoLine = errors.New("migration: a legacy lock has no line in which to see other processes' waiters")
