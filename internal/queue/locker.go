package queue

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/cohort"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/internal/setup"
)

// Locker takes queue locks on a Store. One Locker stands for one process: its
// goroutines contending for the same id queue in-process, and only one of them
// at a time contends in the store. Safe for concurrent use.
type Locker struct {
	store lockstep.Store
	cfg   config
	// scope is the store's (lockstep.ScopeOf), read once at New: every id
	// is kept in the row scope.Row(id), so a DC-local lock's identity
	// carries its data centre (row).
	scope  lockstep.Scope
	hlc    *clock.HLC
	ts     *clock.Timestamps
	owners *setup.Owners
	// ownerCol is this Locker's owner cell in every id's partition
	// (internal/layout): the one acquisition of an id it has in the store at a
	// time writes it.
	ownerCol string
	turns    lifecycle.Turns
	adopts   adoptions // ids adopted beside this Locker's own contenders (adoptcol.go)
	floors   floors
	hints    hints   // ids recently seen contended: no fast path for them
	janitor  janitor // drops expired floors and hints (idstate.go)
	// parts are the parts in flight for a composer (Acquire, Adopt), which
	// Close ends.
	parts  lifecycle.Tracker[*held.Lock]
	leases *lease.Scheduler // renews every held lock and waiting queue cell
	wake   *waker           // nil: wake-ups off (wake.go)
	// wakeHealth is whether wake-ups arrive (wakehealth.go).
	wakeHealth wakeHealth
	// noMutator is set once the store, though it has PutDelete, refused it
	// with errors.ErrUnsupported (a wrapper over a store without it): the
	// Locker then writes and deletes in separate requests (mutator).
	noMutator atomic.Bool
	// adoptedToken is the highest fencing token of a lock this Locker
	// adopted (evidence.go).
	adoptedToken atomic.Int64
	// ahead is set for a queuelock Locker at EvidenceUse: its claims take
	// tokens drawn ahead when they can (evidence.go); aheadTaken counts
	// the tokens so taken, aheadKept and aheadBelow those of winning
	// claims kept and refused by the evidence (AheadTaken).
	ahead      bool
	aheadTaken atomic.Int64
	aheadKept  atomic.Int64
	aheadBelow atomic.Int64
}

// mutator returns the store as a lockstep.Mutator, unless it has none or
// refused one as unsupported.
func (l *Locker) mutator() (lockstep.Mutator, bool) {
	m, ok := l.store.(lockstep.Mutator)
	return m, ok && !l.noMutator.Load()
}

var _ manager.Algorithm = (*Locker)(nil)

// TakeAhead lets this Locker's claims, at EvidenceUse, take their tokens
// from values drawn ahead, as a queuelock Locker's do (evidence.go). A
// composer that calls it, before the Locker's first acquisition, sets
// manager.Acquisition.AheadSince on every Take to when the acquisition was
// admitted.
func (l *Locker) TakeAhead() { l.ahead = l.cfg.evidence == EvidenceUse }

// Core returns the queue Locker below m, a Locker NewLocker built: its
// Algorithm, or the algorithm below its local-handoff layer.
func Core(m *manager.Locker) *Locker {
	alg := m.Algorithm()
	if c, ok := alg.(*cohort.Algorithm); ok {
		alg = c.Inner()
	}
	return alg.(*Locker)
}

// NewLocker returns the lock manager over a queue Locker on store with an
// owner-id issuer of its own, as queuelock.New says: the process's
// settings resolved once, then the core (Options.LocalHandoff wraps it in
// a cohort) and the manager over it.
func NewLocker(store lockstep.Store, opts *Options) (*manager.Locker, error) {
	p, err := opts.process().Resolve()
	if err != nil {
		return nil, err
	}
	return manager.BuildLocker("queuelock", lockstep.ModeNew, p, func() (manager.Core, error) {
		l, err := newCore(store, opts, p, nil)
		if err != nil {
			return manager.Core{}, err
		}
		l.TakeAhead()
		var alg manager.Algorithm = l
		if l.cfg.local > 0 {
			if alg, err = cohort.New(l, cohort.Options{Bound: l.cfg.local, Clock: l.cfg.Clock,
				Retain: l.cfg.retain, WatchEvery: l.cfg.Lease.Renew, TestingKnobs: l.cfg.knobs.Cohort}); err != nil {
				_ = l.Close(context.Background())
				return manager.Core{}, err
			}
		}
		return manager.Core{Alg: alg, Store: store, MaxServerSkew: l.cfg.Lease.MaxServerSkew, Rand: l.cfg.rand, Knobs: l.cfg.knobs.Manager}, nil
	})
}

// NewWith returns a Locker on store for a composer (package combined,
// package migration), whose locks have the store's scope: p is the
// process's settings the composer resolved (setup.Process.Half), and opts'
// fields of p's names are not read (nil opts: defaults for the rest). It
// draws its owner ids from owners (nil: an issuer of its own). Invalid
// options and an issuer of another process return an error wrapping
// lockstep.ErrInvalidConfig, and so does Options.LocalHandoff, which only
// NewLocker applies (the composers take this Locker's parts directly).
// Options.Evidence needs p.Fencing: the process's token service, whose
// Drawn covers the tokens the composer draws for its combined locks, so
// the queue half of a combined lock records them (evidence.go).
func NewWith(store lockstep.Store, opts *Options, p setup.Process, owners *setup.Owners) (*Locker, error) {
	if opts != nil && (opts.LocalHandoff != 0 || opts.Retain != 0) {
		return nil, &lockstep.ConfigError{Field: "LocalHandoff", Reason: fmt.Sprintf(
			"%d (Retain %v): Queue.LocalHandoff and Queue.Retain are a queuelock.Locker's; a combined Locker takes the queue lock as a part of its own (leave them 0), and a migration Locker has Options.LocalHandoff and Options.Retain for every mode", opts.LocalHandoff, opts.Retain)}
	}
	return newCore(store, opts, p, owners)
}

// newCore is NewWith for NewLocker, which applies Options.LocalHandoff.
func newCore(store lockstep.Store, opts *Options, p setup.Process, owners *setup.Owners) (*Locker, error) {
	if store == nil {
		return nil, &lockstep.ConfigError{Field: "Store", Reason: "nil store: pass a cassandra.Store (cassandra.New) or, in tests, a model.Store"}
	}
	cfg, err := opts.resolve(p)
	if err != nil {
		return nil, err
	}
	if err := checkEvidenceStore(store, cfg.evidence); err != nil {
		return nil, err
	}
	if owners, err = setup.OwnersFor(owners, cfg.ID); err != nil {
		return nil, err
	}
	leases, err := lease.NewScheduler(cfg.Clock, nil)
	if err != nil {
		return nil, err
	}
	scope := lockstep.ScopeOf(store)
	if !scope.IsGlobal() {
		if err := lockstep.ValidateDC(scope.DC()); err != nil {
			return nil, err
		}
	}
	l := &Locker{
		store: store, cfg: cfg, scope: scope,
		hlc: clock.NewHLC(cfg.Clock), ts: clock.NewTimestamps(cfg.Clock),
		owners: owners, ownerCol: layout.NewOwnerColumn(cfg.ID, cfg.rand),
		leases: leases,
	}
	l.turns.Clock = cfg.Clock
	if cfg.wake != nil { // last: it hands the transport to l
		l.wake = newWaker(l)
	}
	return l, nil
}

// Take is the queue lock's acquisition of one id, below the lock manager
// (manager.Algorithm): the attempt, with a fencing token when
// Options.Fencing is set.
func (l *Locker) Take(ctx context.Context, st *manager.Acquisition) (held.Spec, error) {
	loss := held.NewLoss()
	a := &attempt{l: l, id: l.row(st.ID), owner: l.owners.Next(), try: st.Try,
		mode: lockstep.ModeNew, access: st.Access, loss: loss, fence: true, block: st.TokenBlock,
		aheadSince: st.AheadSince}
	p, err := a.run(ctx)
	st.Attempts, st.Requests = a.claims, a.requests
	if err != nil {
		return held.Spec{}, err
	}
	return held.Spec{ID: st.ID, Owner: a.owner, Mode: lockstep.ModeNew, Token: a.token, TokenLast: fencing.Drawer{Block: a.block}.Last(a.token),
		Crowded: a.crowded, Parts: []held.Part{p}, Loss: loss, Since: p.since}, nil
}

// row returns the partition the lock of id is kept in: the one place where
// the store's scope maps ids to rows. A global store's row is id itself,
// the frozen format; a DC-local store's is "\x00" + dc + "\x00" + id, which
// no valid id or other data centre's row can equal (lockstep.Scope.Row).
func (l *Locker) row(id string) string { return l.scope.Row(id) }

// column names the owner cell of this Locker's acquisition in access a on
// turn slot k: its slot of ownerCol, or, with Options.IntentionRange and an
// intention access, that column's twin in the intention range
// (internal/layout; docs/algorithms.md, section 4.14).
func (l *Locker) column(a lockstep.Access, k int) string {
	col := layout.SlotColumn(l.ownerCol, k)
	if l.cfg.intention && layout.Intention(a) {
		return layout.IntentionColumn(col)
	}
	return col
}

// Scope returns the scope of this Locker's locks: its store's, read at New
// (lockstep.ScopeOf).
func (l *Locker) Scope() lockstep.Scope { return l.scope }

// Close ends the parts in flight for a composer and waits for its
// goroutines (manager.Algorithm: the manager above it has released its
// locks). ctx bounds the releases.
func (l *Locker) Close(ctx context.Context) error {
	err := l.parts.Close(ctx)
	l.leases.Close()
	l.stopJanitor()
	return err
}
