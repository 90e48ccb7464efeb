package combined

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/deadlock"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/internal/queue"
	"github.com/lockstep-go/lockstep/internal/setup"
	"github.com/lockstep-go/lockstep/internal/shadow"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Options configure a combined Locker built by New. Nil means defaults.
type Options struct {
	// Queue and Legacy configure the two Lockers New builds. Their Clock and
	// ProcessID, where set, must agree; their Separator and Fencing must be
	// unset.
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

// drawRetry is how long Lock pauses after a failed token draw before it
// takes the lock again: the global time table is failing, and retrying at
// once would only add load.
const drawRetry = 50 * time.Millisecond

// Locker takes combined locks from a queue Locker and a legacy Locker of one
// process. Safe for concurrent use.
type Locker struct {
	// queue and legacy are the two algorithms' cores (internal/queue,
	// internal/shadow), called directly.
	queue   *queue.Locker
	legacy  *shadow.Locker
	fencing *clock.Global
	clock   lockstep.Clock
	// sh is the Locker's shell: groups, hierarchy and reentrancy
	// (group.go), the calls in flight and combined locks held that Close
	// ends and releases, and the acquisition of one id around take.
	sh    *manager.Shell
	owned []interface{ Close(context.Context) error } // cores built by New: closed by Close, after sh
	knobs TestingKnobs                                // planted defects; zero in production
}

var _ lockstep.GroupLocker = (*Locker)(nil)

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
	var o Options
	if opts != nil {
		o = *opts
	}
	var qo queuelock.Options
	var so shadowlock.Options
	if o.Queue != nil {
		qo = *o.Queue
	}
	if o.Legacy != nil {
		so = *o.Legacy
	}
	if qo.Separator != "" || so.Separator != "" {
		return nil, &lockstep.ConfigError{Field: "Queue.Separator/Legacy.Separator",
			Reason: "a combined lock takes an id's ancestors once, for both halves: set combined Options.Separator and leave the halves' unset"}
	}
	if qo.Fencing != nil || so.Fencing != nil {
		return nil, &lockstep.ConfigError{Field: "Queue.Fencing/Legacy.Fencing",
			Reason: "a combined lock draws one token for both halves: set combined Options.Fencing and leave the halves' Fencing unset"}
	}
	if qo.Deadlock != nil || so.Deadlock != nil {
		return nil, &lockstep.ConfigError{Field: "Queue.Deadlock/Legacy.Deadlock",
			Reason: "a combined lock waits as one: set combined Options.Deadlock and leave the halves' unset"}
	}
	switch {
	case qo.ProcessID == "":
		qo.ProcessID = so.ProcessID
	case so.ProcessID == "":
		so.ProcessID = qo.ProcessID
	case qo.ProcessID != so.ProcessID:
		return nil, &lockstep.ConfigError{Field: "Queue.ProcessID/Legacy.ProcessID",
			Reason: fmt.Sprintf("one combined Locker is one process, but they differ (%q, %q): set one of them, or both alike", qo.ProcessID, so.ProcessID)}
	}
	if qo.ProcessID == "" {
		qo.ProcessID = setup.NewProcessID()
		so.ProcessID = qo.ProcessID
	}
	if qo.Clock == nil {
		qo.Clock = so.Clock
	}
	if so.Clock == nil {
		so.Clock = qo.Clock
	}
	q, err := queue.New(store, (*queue.Options)(&qo))
	if err != nil {
		return nil, fmt.Errorf("combined: queue lock: %w", err)
	}
	// The legacy core draws its owner ids from the queue core's issuer,
	// passed explicitly: owner ids unique across the process's two cores.
	g, err := shadow.NewWith(store, (*shadow.Options)(&so), q.Owners())
	if err != nil {
		_ = q.Close(context.Background())
		return nil, fmt.Errorf("combined: legacy lock: %w", err)
	}
	l, err := compose(q, g, &ComposeOptions{Fencing: o.Fencing, Observer: o.Observer, Separator: o.Separator, TestingKnobs: o.TestingKnobs},
		detecting{store, o.Deadlock, max(qo.MaxServerSkew, so.MaxServerSkew), qo.Rand})
	if err != nil {
		_ = errors.Join(g.Close(context.Background()), q.Close(context.Background()))
		return nil, err
	}
	l.owned = []interface{ Close(context.Context) error }{g, q}
	return l, nil
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
	return compose(queue.Core(held.Key{}), legacy.Core(held.Key{}), opts, detecting{})
}

// ComposeCores is Compose for this module's composing Lockers (package
// migration), which build the algorithms' cores themselves, with one
// owner-id issuer; its key type is internal to the module, so nothing
// outside it can call ComposeCores.
func ComposeCores(_ held.Key, q *queue.Locker, g *shadow.Locker, opts *ComposeOptions) (*Locker, error) {
	return compose(q, g, opts, detecting{})
}

// detecting is what New's Options.Deadlock asks of compose.
type detecting struct {
	store lockstep.Store
	d     *lockstep.DeadlockDetection // nil: off
	skew  time.Duration
	rand  *rand.Rand // the queue half's Options.Rand; may be nil
}

// compose is Compose with New's deadlock detection.
func compose(q *queue.Locker, g *shadow.Locker, opts *ComposeOptions, dl detecting) (*Locker, error) {
	var o ComposeOptions
	if opts != nil {
		o = *opts
	}
	if q.Process() != g.Process() {
		return nil, &lockstep.ConfigError{Field: "queue/legacy",
			Reason: fmt.Sprintf("the two Lockers stand for different processes (%q, %q): build both with the same ProcessID", q.Process(), g.Process())}
	}
	if o.Observer == nil {
		o.Observer = q.Observer()
	}
	l := &Locker{queue: q, legacy: g, fencing: o.Fencing, clock: q.Clock()}
	if o.TestingKnobs != nil {
		l.knobs = *o.TestingKnobs
	}
	det, err := deadlock.ForLocker(dl.store, q.Clock(), q.Process(), dl.d, dl.skew, dl.rand, l.knobs.Manager.DeadlockKnobs())
	if err != nil {
		return nil, err
	}
	if l.sh, err = manager.NewShell(manager.ShellConfig{Name: "combined", Mode: lockstep.ModeCombined, Clock: q.Clock(), Observer: o.Observer,
		Separator: o.Separator, Detector: det, Knobs: l.knobs.Manager}); err != nil {
		return nil, err
	}
	return l, nil
}

// One is this Locker's acquisition of one flat id in access (with try:
// one attempt), for a composing Locker of this module that applies the
// lock manager (groups, hierarchy, reentrancy) itself (package migration
// calls it directly, below this Locker's own manager). Its key type is
// internal to the module, so nothing outside it can call One.
func (l *Locker) One(ctx context.Context, _ held.Key, id string, access lockstep.Access, try bool) (lockstep.Lock, error) {
	return l.acquireOne(ctx, id, access, try)
}

// Lock takes the queue lock, then the legacy lock, waiting for each; when ctx
// ends first it releases what it took and returns an error for which
// errors.Is(err, ctx.Err()) holds.
func (l *Locker) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.group(ctx, []lockstep.Request{{ID: id}}, false)
}

// TryLock takes both halves without waiting for a holder; it fails with
// ErrLocked, holding nothing, if either is taken.
func (l *Locker) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.group(ctx, []lockstep.Request{{ID: id}}, true)
}

// errQueueLost ends a wait for the legacy lock whose queue lock was lost.
var errQueueLost = fmt.Errorf("queue lock lost while taking the legacy lock: %w", lockstep.ErrLost)

// acquireOne is this Locker's acquisition of one flat id: the shell's
// call (Close ends it) around take, then the held lock and its event.
func (l *Locker) acquireOne(ctx context.Context, id string, access lockstep.Access, try bool) (lockstep.Lock, error) {
	call, ctx, err := l.sh.Begin(ctx, id, access, try)
	if err != nil {
		return nil, err
	}
	var st manager.Stats
	spec, err := l.take(ctx, id, access, try, &st)
	return call.End(spec, err, st)
}

// take is the combined lock's acquisition of one id, for
// acquireOne: it takes id exclusively, both halves, whatever access is
// asked (docs/algorithms.md, section 6.3, "Fairness"; the shell reports
// access in the AcquireEvent). Its errors say "combined: ".
func (l *Locker) take(ctx context.Context, id string, access lockstep.Access, try bool, st *manager.Stats) (held.Spec, error) {
	s, err := l.takeLoop(ctx, id, access, try, st)
	if err != nil {
		return held.Spec{}, fmt.Errorf("combined: %w", err)
	}
	return s, nil
}

// add adds a half's attempts and requests to st, for the AcquireEvent.
func add(st *manager.Stats, r held.Result) {
	st.Attempts, st.Requests = st.Attempts+r.Attempts, st.Requests+r.Requests
}

// takeLoop runs the combined protocol until both halves (and the token) are
// held, or it must give up.
func (l *Locker) takeLoop(ctx context.Context, id string, access lockstep.Access, try bool, st *manager.Stats) (held.Spec, error) {
	for {
		loss := held.NewLoss() // one per try: a loss of an abandoned one must not reach the next
		req := held.Request{ID: id, Try: try, Mode: lockstep.ModeCombined, Access: lockstep.Exclusive, Loss: loss}
		if l.knobs.CombinedSharedQueueHalf {
			req.Access = access // the legacy half ignores it: exclusive anyway
		}
		q, g, err := l.takeBoth(ctx, req)
		if q.Part == nil {
			return held.Spec{}, err
		}
		add(st, q)
		var token int64
		drawFailed := false
		if err == nil {
			add(st, g)
			if token, err = l.fence(ctx, loss, st); err == nil {
				return held.Spec{ID: id, Owner: q.Owner, LegacyOwner: g.Owner, Mode: lockstep.ModeCombined, Token: token,
					Parts: []held.Part{q.Part, g.Part}, ParallelRelease: true, Loss: loss, Since: q.Since}, nil
			}
			drawFailed = !errors.Is(err, fencing.ErrLapsed)
			err = errors.Join(err, giveUp(ctx, g.Part))
		}
		err = errors.Join(err, giveUp(ctx, q.Part))
		again := (errors.Is(err, errQueueLost) || errors.Is(err, fencing.ErrLapsed) || drawFailed) && !errors.Is(err, lockstep.ErrRefused)
		if try || !again || ctx.Err() != nil {
			return held.Spec{}, err
		}
		if drawFailed {
			if serr := l.clock.Sleep(ctx, drawRetry); serr != nil {
				return held.Spec{}, fmt.Errorf("%w (last error: %v)", serr, err)
			}
		}
	}
}

// giveUp stops a part taken for an acquisition that will not be returned and
// deletes its cells; what a failed delete leaves expires after the TTL.
func giveUp(ctx context.Context, p held.Part) error {
	p.Stop()
	_, err := p.Release(context.WithoutCancel(ctx))
	return err
}

// fence draws the one token of a combined acquisition, once both halves are
// held, and keeps it only if both leases were still open when it arrived
// (internal/fencing has the argument; the Loss checks every part's
// deadline). On error the caller gives both halves up.
func (l *Locker) fence(ctx context.Context, loss *held.Loss, st *manager.Stats) (int64, error) {
	if l.fencing == nil {
		return 0, nil
	}
	st.Requests += 2
	return fencing.Drawer{Global: l.fencing, Knobs: l.knobs.Fencing}.Draw(ctx, func() bool { return !loss.Fired() })
}

// takeLegacy takes the legacy lock while holding queue part q, by acquire,
// which must use lctx. Only the queue's head may contend on the legacy
// tables (docs/algorithms.md, section 6.3), so the attempt ends with errQueueLost, holding
// nothing, as soon as q is lost (cancel cancels lctx) — a waiter that kept
// contending after losing its place would compete with the legacy
// algorithm's unfairness and starve. The goroutine watching for that lives
// only while the legacy lock is awaited.
func (l *Locker) takeLegacy(ctx, lctx context.Context, cancel context.CancelCauseFunc, req held.Request, q held.Part,
	acquire func() (held.Result, error)) (held.Result, error) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-req.Loss.C():
			cancel(errQueueLost)
		case <-stop:
		}
	})
	g, err := acquire()
	close(stop)
	wg.Wait()
	if err != nil {
		if errors.Is(context.Cause(lctx), errQueueLost) && ctx.Err() == nil {
			return held.Result{}, errQueueLost
		}
		return held.Result{}, err
	}
	if q.Expired() { // lost while the legacy lock was being taken: checks the deadline too
		return held.Result{}, errors.Join(errQueueLost, giveUp(ctx, g.Part))
	}
	return g, nil
}

// Close makes further calls fail with lockstep.ErrClosed, ends the waits in
// flight and releases every combined lock still held (both halves side by
// side). A Locker from New then closes its two Lockers.
func (l *Locker) Close(ctx context.Context) error {
	errs := []error{l.sh.Close(ctx)}
	for _, o := range l.owned {
		errs = append(errs, o.Close(ctx))
	}
	return errors.Join(errs...)
}
