package shadow

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/internal/setup"
)

// Locker takes legacy shadow-table locks. Every goroutine contends in the
// store on its own, as the legacy code does. Safe for concurrent use.
type Locker struct {
	store  lockstep.Store
	cfg    config
	ts     *clock.Timestamps
	owners *setup.Owners

	// parts are the parts in flight for a composer (Acquire, Prepare),
	// which Close ends.
	parts  lifecycle.Tracker[*held.Lock]
	leases *lease.Scheduler // renews every held lock

	mu sync.Mutex // guards cfg.rand
}

var _ manager.Algorithm = (*Locker)(nil)

// NewLocker returns the lock manager over a legacy Locker on store with an
// owner-id issuer of its own, as shadowlock.New says: the process's
// settings resolved once, then the core and the manager over it.
func NewLocker(store lockstep.Store, opts *Options) (*manager.Locker, error) {
	p, err := opts.process().Resolve()
	if err != nil {
		return nil, err
	}
	return manager.BuildLocker("shadowlock", lockstep.ModeLegacy, p, func() (manager.Core, error) {
		l, err := NewWith(store, opts, p, nil)
		if err != nil {
			return manager.Core{}, err
		}
		return manager.Core{Alg: l, Store: store, MaxServerSkew: l.cfg.Lease.MaxServerSkew, Rand: l.cfg.rand, Knobs: l.cfg.knobs.Manager}, nil
	})
}

// NewWith returns a Locker on store with p, the process's settings
// resolved (setup.Process.Resolve, or a composer's setup.Process.Half);
// opts' fields of p's names are not read (nil opts: defaults for the
// rest). It draws its owner ids from owners (nil: an issuer of its own).
// Invalid options, a DC-local store (lockstep.ScopeOf; the legacy format
// has no room for a data centre) and an issuer of another process return
// an error wrapping lockstep.ErrInvalidConfig.
func NewWith(store lockstep.Store, opts *Options, p setup.Process, owners *setup.Owners) (*Locker, error) {
	if store == nil {
		return nil, &lockstep.ConfigError{Field: "Store", Reason: "nil store: pass a cassandra.Store (cassandra.New) or, in tests, a model.Store"}
	}
	if s := lockstep.ScopeOf(store); !s.IsGlobal() {
		return nil, &lockstep.ScopeError{Locker: "shadowlock", Scope: s, Reason: "the legacy lock's frozen format keeps a lock in the row " +
			"named by its id, with no room for a data centre, and legacy processes read that row from every data centre: " +
			"build the legacy lock on a global store (cassandra.New without WithLocalDC); DC-local locks are queuelock's"}
	}
	cfg, err := opts.resolve(p)
	if err != nil {
		return nil, err
	}
	if owners, err = setup.OwnersFor(owners, cfg.ID); err != nil {
		return nil, err
	}
	leases, err := lease.NewScheduler(cfg.Clock, nil)
	if err != nil {
		return nil, err
	}
	return &Locker{store: store, cfg: cfg, ts: clock.NewTimestamps(cfg.Clock), owners: owners, leases: leases}, nil
}

// Take is the legacy lock's acquisition of one id, below the lock manager
// (manager.Algorithm): rounds until one wins, with a fencing token when
// Options.Fencing is set. It takes the id exclusively whatever access is
// asked, and says so to the manager (the deadlock records show it): the
// legacy format has only exclusive locks, and an exclusive lock excludes
// at least what any access does (the manager reports the access asked in
// the AcquireEvent).
func (l *Locker) Take(ctx context.Context, a *manager.Acquisition) (held.Spec, error) {
	a.Takes(lockstep.Exclusive)
	r := &round{l: l, id: a.ID, owner: l.owners.Next(), fenced: true, block: a.TokenBlock}
	rounds, err := l.run(ctx, r, a.Try)
	a.Attempts, a.Requests = rounds, r.requests
	if err != nil {
		return held.Spec{}, err
	}
	loss := held.NewLoss()
	return held.Spec{ID: a.ID, Owner: r.owner, LegacyOwner: r.owner, Mode: lockstep.ModeLegacy, Token: r.token, TokenLast: fencing.Drawer{Block: r.block}.Last(r.token),
		Parts: []held.Part{newPart(r, lockstep.ModeLegacy, loss)}, Loss: loss, Since: r.since}, nil
}

// run executes listing 5 (for try, until the first AnotherThreadIsOwner or
// MaxTryAttempts concurrent attempts) and returns how many rounds it took.
func (l *Locker) run(ctx context.Context, r *round, try bool) (int, error) {
	attempt := 1
	for rounds := 1; ; rounds++ {
		out, err := r.try(ctx)
		if err == nil && out == success {
			// A failed draw is a store error like any other; a token that
			// arrived after the lease lapsed, a round that came too late.
			// Either way the round is undone and, for Lock, retried.
			err = r.fence(ctx)
		}
		if err != nil {
			r.cleanup(ctx)
			if gaveUp(ctx, err) { // a prepared acquisition aborted (overlap.go)
				return rounds, fmt.Errorf("shadowlock: %q: %w", r.id, err)
			}
			if ctx.Err() != nil {
				return rounds, fmt.Errorf("shadowlock: %q: %w (last store error: %v)", r.id, ctx.Err(), err)
			}
			if try || errors.Is(err, lockstep.ErrRefused) { // a refusal: no retry can help (a permission, a table)
				return rounds, fmt.Errorf("shadowlock: %q: %w", r.id, err)
			}
			l.cfg.Logger.Warn("shadowlock: round failed; retrying", "id", r.id, "err", err)
			// A cell of this owner may still exist, or a delete of it may
			// still be in flight: retrying under the same owner id could take
			// that cell for a held lock (listing 4, step 3) just before the
			// delete lands. The next round therefore uses a fresh owner id.
			if !l.cfg.knobs.ReuseOwnerAfterStoreError {
				r.owner = l.owners.Next()
			}
			out = concurrentAttempt
		}
		var backoff time.Duration
		switch out {
		case success:
			return rounds, nil
		case anotherThreadIsOwner:
			if try {
				return rounds, fmt.Errorf("shadowlock: %q: %w", r.id, lockstep.ErrLocked)
			}
			backoff = l.uniform(1000 * time.Millisecond)
		case concurrentAttempt:
			if try && attempt >= lockstep.MaxTryAttempts {
				return rounds, fmt.Errorf("shadowlock: %q: %w (%d concurrent attempts)", r.id, lockstep.ErrLocked, attempt)
			}
			backoff = l.uniform(time.Duration(50*attempt) * time.Millisecond)
			attempt++
		}
		if err := l.cfg.Clock.Sleep(ctx, backoff); err != nil {
			return rounds, fmt.Errorf("shadowlock: %q: %w", r.id, err)
		}
	}
}

// uniform draws a duration uniformly from [0, max].
func (l *Locker) uniform(max time.Duration) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return time.Duration(l.cfg.rand.Int64N(int64(max) + 1))
}

// Close ends the parts in flight for a composer and waits for its
// goroutines (manager.Algorithm: the manager above it has released its
// locks).
func (l *Locker) Close(ctx context.Context) error {
	err := l.parts.Close(ctx)
	l.leases.Close()
	return err
}
