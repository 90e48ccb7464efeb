package combine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/internal/queue"
	"github.com/lockstep-go/lockstep/internal/shadow"
)

// drawRetry is how long Lock pauses after a failed token draw before it
// takes the lock again: the global time table is failing, and retrying at
// once would only add load.
const drawRetry = 50 * time.Millisecond

// Locker is the combined lock's algorithm over the two algorithms' cores
// of one process, which it calls directly (manager.Algorithm). Safe for
// concurrent use.
type Locker struct {
	queue   *queue.Locker
	legacy  *shadow.Locker
	fencing *clock.Global // nil: no token
	clock   lockstep.Clock
	owned   bool         // Close closes the two cores
	knobs   TestingKnobs // planted defects; zero in production
}

var _ manager.Algorithm = (*Locker)(nil)

// New returns the combined algorithm over q and g, which must stand for
// one process (the same process id); fencing, if not nil, draws one token
// per acquisition. With owned, its Close closes q and g. A q and g of
// different processes, and a fencing other than the one q records
// evidence with (q.Recording), return a *lockstep.ConfigError: q's
// releases record the highest token drawn through its own token service,
// which must cover the combined tokens (docs/algorithms.md, section 5.3).
func New(q *queue.Locker, g *shadow.Locker, fencing *clock.Global, owned bool, knobs *TestingKnobs) (*Locker, error) {
	if q.Process() != g.Process() {
		return nil, &lockstep.ConfigError{Field: "queue/legacy",
			Reason: fmt.Sprintf("the two Lockers stand for different processes (%q, %q): build both with the same ProcessID", q.Process(), g.Process())}
	}
	if r := q.Recording(); r != nil && fencing != nil && fencing != r {
		return nil, &lockstep.ConfigError{Field: "Fencing",
			Reason: "the queue Locker records evidence (queuelock.Options.Evidence) of the tokens drawn through its own Options.Fencing, " +
				"and a combined lock's token must be among them: pass that same clock.Global as the combined Locker's Fencing"}
	}
	l := &Locker{queue: q, legacy: g, fencing: fencing, clock: q.Clock(), owned: owned, knobs: deref.Of(knobs)}
	return l, nil
}

// Close closes the two cores if this Locker owns them (New's owned).
func (l *Locker) Close(ctx context.Context) error {
	if !l.owned {
		return nil
	}
	return errors.Join(l.legacy.Close(ctx), l.queue.Close(ctx))
}

// errQueueLost ends a wait for the legacy lock whose queue lock was lost.
var errQueueLost = fmt.Errorf("queue lock lost while taking the legacy lock: %w", lockstep.ErrLost)

// Take is the combined lock's acquisition of one id, below the lock
// manager (manager.Algorithm): it takes id exclusively, both halves,
// whatever access is asked (docs/algorithms.md, section 6.3, "Fairness"),
// and says so to the manager (the deadlock records show it; the
// AcquireEvent reports the access asked). Its errors say "combined: ".
func (l *Locker) Take(ctx context.Context, a *manager.Acquisition) (held.Spec, error) {
	a.Takes(lockstep.Exclusive)
	s, err := l.takeLoop(ctx, a.ID, a.Access, a.Try, a)
	if err != nil {
		return held.Spec{}, fmt.Errorf("combined: %w", err)
	}
	return s, nil
}

// add adds a half's attempts and requests to st, for the AcquireEvent.
func add(st *manager.Acquisition, r held.Result) {
	st.Attempts, st.Requests = st.Attempts+r.Attempts, st.Requests+r.Requests
}

// takeLoop runs the combined protocol until both halves (and the token) are
// held, or it must give up.
func (l *Locker) takeLoop(ctx context.Context, id string, access lockstep.Access, try bool, st *manager.Acquisition) (held.Spec, error) {
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
				return held.Spec{ID: id, Owner: q.Owner, LegacyOwner: g.Owner, Mode: lockstep.ModeCombined, Token: token, TokenLast: fencing.Drawer{Block: st.TokenBlock}.Last(token),
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
func (l *Locker) fence(ctx context.Context, loss *held.Loss, st *manager.Acquisition) (int64, error) {
	if l.fencing == nil {
		return 0, nil
	}
	st.Requests += 2
	return fencing.Drawer{Global: l.fencing, Block: st.TokenBlock, Knobs: l.knobs.Fencing}.Draw(ctx, func() bool { return !loss.Fired() })
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
