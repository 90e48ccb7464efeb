package combined

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/combine"
	"github.com/lockstep-go/lockstep/internal/deadlock"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/manager"
	iqueue "github.com/lockstep-go/lockstep/internal/queue"
	"github.com/lockstep-go/lockstep/internal/setup"
	"github.com/lockstep-go/lockstep/internal/shadow"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Options configure a combined Locker built by New. Nil means defaults.
type Options struct {
	// Queue and Legacy configure the two Lockers New builds. Their Clock and
	// ProcessID, where set, must agree; their Separator and Fencing must be
	// unset. Queue.Evidence may be EvidenceRecord (with Fencing): the queue
	// half then records each combined lock's token, as a fleet that moves
	// on to EvidenceUse needs (docs/algorithms.md, section 5.3).
	Queue  *queuelock.Options
	Legacy *shadowlock.Options
	// Fencing, when set, gives every combined acquisition one token
	// (lockstep.Fenced); use the fleet's global time table. A lock of several
	// members is not Fenced. Default none: the locks are not lockstep.Fenced.
	Fencing *clock.Global
	// Observer receives one AcquireEvent and one ReleaseEvent per combined
	// acquisition. Default: the queue Locker's.
	Observer lockstep.Observer
	// Separator makes ids hierarchical, as queuelock.Options.Separator says;
	// every member is exclusive. Default "": flat ids.
	Separator string
	// Deadlock, when set, turns on deadlock detection for the combined
	// locks, as queuelock.Options.Deadlock says; leave the halves' unset.
	// Default nil: off.
	Deadlock *lockstep.DeadlockDetection
	// TestingKnobs plant defects for negative controls. Leave nil.
	TestingKnobs *TestingKnobs
}

// ComposeOptions configure a combined Locker built by Compose. Nil means
// defaults; the fields mean what Options' fields of the same name mean.
type ComposeOptions struct {
	Fencing      *clock.Global
	Observer     lockstep.Observer
	Separator    string
	TestingKnobs *TestingKnobs
}

// Locker takes combined locks from a queue Locker and a legacy Locker of one
// process. Safe for concurrent use.
type Locker manager.Locker

var (
	_ lockstep.GroupLocker = (*Locker)(nil)
	_ lockstep.UnitLocker  = (*Locker)(nil)
)

// TestingKnobs switch on planted defects for this module's negative
// controls (propertytests/doc.go; docs/verification.md lists them); the
// halves' own go in Options.Queue and Options.Legacy. Leave them nil: every
// one of them breaks the lock.
type TestingKnobs = combine.TestingKnobs

// New builds a queue Locker and a legacy Locker on store and returns a
// combined Locker that owns them: its Close closes them too. A DC-local
// store (lockstep.ScopeOf) is refused with an error wrapping
// lockstep.ErrInvalidConfig: the legacy half's format is global.
func New(store lockstep.Store, opts *Options) (*Locker, error) {
	if s := lockstep.ScopeOf(store); !s.IsGlobal() {
		return nil, &lockstep.ScopeError{Locker: "combined", Scope: s, Reason: "a combined lock takes the legacy lock too, whose frozen " +
			"format keeps a lock in the row named by its id, global: build it on a global store (cassandra.New without " +
			"WithLocalDC); DC-local locks are queuelock's"}
	}
	o := deref.Of(opts)
	qo, so := deref.Of(o.Queue), deref.Of(o.Legacy)
	if err := combine.CheckHalves("combined", &qo, &so, ""); err != nil {
		return nil, err
	}
	p, err := o.process(&qo, &so)
	if err != nil {
		return nil, err
	}
	// The halves take flat ids and no token of their own: the combined
	// Locker applies the separator, the deadlock detection and fencing once.
	// A queue half that records evidence is given the process's token
	// service all the same: what it records is the highest token drawn
	// through it, the combined locks' included.
	if qo.Evidence == iqueue.EvidenceUse {
		return nil, &lockstep.ConfigError{Field: "Queue.Evidence", Reason: "EvidenceUse draws a claim's token beside the claim, and a combined lock draws its token after both halves won: " +
			"use EvidenceRecord here (its queue half then records every combined token for the fleet's EvidenceUse Lockers), or a migration.Locker, whose locks of mode new use it"}
	}
	if qo.Evidence != iqueue.EvidenceOff && p.Fencing == nil {
		return nil, &lockstep.ConfigError{Field: "Queue.Evidence", Reason: fmt.Sprintf("%v records fencing tokens, and this combined Locker draws none: set Options.Fencing, or leave Queue.Evidence off", qo.Evidence)}
	}
	q, err := iqueue.NewWith(store, &qo, p.Half(qo.Logger, qo.Observer, qo.Evidence != iqueue.EvidenceOff), nil)
	if err != nil {
		return nil, fmt.Errorf("combined: queue lock: %w", err)
	}
	// The legacy core draws its owner ids from the queue core's issuer,
	// passed explicitly: owner ids unique across the process's two cores.
	g, err := shadow.NewWith(store, &so, p.Half(so.Logger, so.Observer, false), q.Owners())
	if err != nil {
		_ = q.Close(context.Background())
		return nil, fmt.Errorf("combined: legacy lock: %w", err)
	}
	l, err := compose(q, g, true, p, o.TestingKnobs, detecting{store, max(qo.MaxServerSkew, so.MaxServerSkew), qo.Rand})
	if err != nil {
		_ = errors.Join(g.Close(context.Background()), q.Close(context.Background()))
		return nil, err
	}
	return l, nil
}

// process returns New's settings, resolved: the halves' clock and process
// id, which must agree where both are set (one combined Locker is one
// process), and o's fencing, separator, deadlock detection and observer
// (default the queue half's).
func (o Options) process(qo *queuelock.Options, so *shadowlock.Options) (setup.Process, error) {
	one := func(field, why string) error {
		return &lockstep.ConfigError{Field: "Queue." + field + "/Legacy." + field,
			Reason: "one combined Locker is one process, but they differ" + why + ": set one of them, or both alike"}
	}
	switch {
	case qo.ProcessID != "" && so.ProcessID != "" && qo.ProcessID != so.ProcessID:
		return setup.Process{}, one("ProcessID", fmt.Sprintf(" (%q, %q)", qo.ProcessID, so.ProcessID))
	case qo.Clock != nil && so.Clock != nil && !setup.SameClock(qo.Clock, so.Clock):
		return setup.Process{}, one("Clock", "")
	}
	return setup.Process{Clock: cmp.Or(qo.Clock, so.Clock), ID: cmp.Or(qo.ProcessID, so.ProcessID), Observer: cmp.Or(o.Observer, qo.Observer),
		Fencing: o.Fencing, Separator: o.Separator, Deadlock: o.Deadlock}.Resolve()
}

// Compose returns a combined Locker taking its halves from queue and legacy,
// which must stand for one process (the same ProcessID and Clock). It does not
// own them: they may keep taking locks of their own modes, and the caller
// closes them after this Locker.
func Compose(queue *queuelock.Locker, legacy *shadowlock.Locker, opts *ComposeOptions) (*Locker, error) {
	if queue == nil {
		return nil, &lockstep.ConfigError{Field: "queue", Reason: "nil queue Locker: pass the process's queuelock.Locker"}
	}
	if legacy == nil {
		return nil, &lockstep.ConfigError{Field: "legacy", Reason: "nil legacy Locker: pass the process's shadowlock.Locker"}
	}
	q := iqueue.Core((*manager.Locker)(queue))
	g := (*manager.Locker)(legacy).Algorithm().(*shadow.Locker)
	o := deref.Of(opts)
	p, err := setup.Process{Clock: q.Clock(), ID: q.Process(), Observer: cmp.Or(o.Observer, q.Observer()),
		Fencing: o.Fencing, Separator: o.Separator}.Resolve()
	if err != nil {
		return nil, err
	}
	return compose(q, g, false, p, o.TestingKnobs, detecting{})
}

// detecting is what New's deadlock detection needs besides the settings.
type detecting struct {
	store lockstep.Store
	skew  time.Duration
	rand  *rand.Rand // the queue half's Options.Rand; may be nil
}

// compose builds the combined Locker over q and g with p, its settings
// resolved; with owned, the Locker's Close closes q and g.
func compose(q *iqueue.Locker, g *shadow.Locker, owned bool, p setup.Process, knobs *TestingKnobs, dl detecting) (*Locker, error) {
	alg, err := combine.New(q, g, p.Fencing, owned, knobs)
	if err != nil {
		return nil, err
	}
	mk := knobs.ManagerKnobs()
	det, err := deadlock.ForLocker(dl.store, p, dl.skew, dl.rand, mk.DeadlockKnobs())
	if err != nil {
		return nil, err
	}
	m, err := manager.NewLocker(alg, manager.Config{Name: "combined", Mode: lockstep.ModeCombined, Clock: p.Clock, Observer: p.Observer,
		Separator: p.Separator, Detector: det, Knobs: mk})
	return (*Locker)(m), err
}

// m is l as the lock manager's Locker it is.
func (l *Locker) m() *manager.Locker { return (*manager.Locker)(l) }

// Lock takes the queue lock, then the legacy lock, waiting for each; when ctx
// ends first it releases what it took and returns an error for which
// errors.Is(err, ctx.Err()) holds.
func (l *Locker) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.m().Lock(ctx, id)
}

// TryLock takes both halves without waiting for a holder; it fails with
// ErrLocked, holding nothing, if either is taken.
func (l *Locker) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.m().TryLock(ctx, id)
}

// LockGroup blocks until every request is held, as one lock, or ctx is done.
// Members are taken in canonical order, each exclusively; when ctx ends first,
// what was taken is released.
func (l *Locker) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.m().LockGroup(ctx, reqs...)
}

// TryLockGroup is LockGroup with TryLock's semantics for each member.
func (l *Locker) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.m().TryLockGroup(ctx, reqs...)
}

// Unit returns a new unit of work of this Locker, whose deadlock reports
// show comment, as lockstep.Unit says: its acquisitions are reentrant for
// the unit, and its UnlockAll releases them. It sends no request.
func (l *Locker) Unit(comment string) lockstep.Unit { return l.m().Unit(comment) }

// Close makes further calls fail with lockstep.ErrClosed, ends the waits in
// flight and releases every combined lock still held (both halves side by
// side). A Locker from New then closes its two Lockers.
func (l *Locker) Close(ctx context.Context) error { return l.m().Close(ctx) }
