package manager

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deadlock"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// Algorithm is what a Locker needs of its lock algorithm: one acquisition
// of one flat id, and its Close. The queue lock (internal/queue), the
// legacy lock (internal/shadow), the combined lock (internal/combine) and
// the migration's mode switch (package migration) implement it; the Locker
// calls down into it, and it calls nothing of the Locker.
type Algorithm interface {
	// Take takes a.ID in a.Access (with a.Try: one attempt, failing with
	// an error wrapping lockstep.ErrLocked) and returns what the Locker
	// holds: the parts, their loss signal, the token. ctx is ended by the
	// Locker's Close and, under deadlock detection, when the wait is a
	// cycle's victim; when it ends first Take returns an error for which
	// errors.Is(err, ctx.Err()) holds, having left nothing behind. It sets
	// a's counts, success or not.
	Take(ctx context.Context, a *Acquisition) (held.Spec, error)
	// Close ends the algorithm's own work (renewals, goroutines, parts in
	// flight for a composer); the Locker calls it once, after releasing
	// every lock it holds.
	Close(ctx context.Context) error
}

// Adopter is an Algorithm that continues another process's locks
// (lockstep.Sharer's Adopt). Adopt returns the token's handle id, its
// members with their accesses, whether the handle is a group (or a flat
// lock, of one member), and one held spec per member, in that order; on
// error it holds nothing. It adopts none of the members skip accepts
// (given the member's id, access and owner; skip may be nil), whose spec
// is nil: the adopting unit holds that acquisition already (HeldFor), and
// a second holder of it would contend with the first.
type Adopter interface {
	Adopt(ctx context.Context, tok string, skip func(id string, a lockstep.Access, owner string) bool) (
		id string, members []lockstep.Request, group bool, specs []*held.Spec, err error)
}

// Acquisition is one acquisition of one id, as a Locker hands it to its
// Algorithm's Take.
type Acquisition struct {
	ID     string
	Access lockstep.Access
	Try    bool
	// Mode is reported in the AcquireEvent: the Locker's Config.Mode, or
	// the mode an Algorithm that chooses one per acquisition chose.
	Mode lockstep.Mode
	// Attempts and Requests are Take's counts, for the AcquireEvent.
	Attempts, Requests int
	// TokenBlock is how many consecutive fencing tokens Take reserves
	// (internal/fencing's Drawer.Block), set by a layer above the
	// algorithm that grants the hold again in memory (internal/cohort); 0:
	// one. Take reports the block's last in held.Spec.TokenLast.
	TokenBlock int
	// AheadSince is when (elapsed µs, on the Locker's clock) the
	// acquisition was admitted, for an Algorithm that may take its fencing
	// token from values drawn ahead (internal/queue): only a draw whose read
	// was sent after it may serve. A composer that admits acquisitions by
	// the migration phase sets it, at least 1 (docs/algorithms.md, section
	// 5.3); 0: no admission, any draw.
	AheadSince int64
	step       Step
}

// Takes says that Take takes the id in access x, stronger than the Access
// asked (Step.Take): the legacy and combined locks take every id
// exclusively, a migration acquisition in those modes too.
func (a *Acquisition) Takes(x lockstep.Access) { a.step.Take(x) }

// Config is what NewLocker needs besides the Algorithm.
type Config struct {
	Name     string        // the package: prefixes the error of a call Close ended
	Mode     lockstep.Mode // Acquisition.Mode's default, reported in every AcquireEvent
	Clock    lockstep.Clock
	Observer lockstep.Observer
	// Separator, Detector and Knobs are the Manager's (New).
	Separator string
	Detector  *deadlock.Detector
	Knobs     *TestingKnobs
}

// Locker is every Locker of this module: a Manager (groups, hierarchy,
// reentrancy, deadlock waits, unlock-all) over one Algorithm, and the calls
// in flight and locks held that Close ends and releases. queuelock,
// shadowlock, combined and migration each define their Locker as this
// type. Safe for concurrent use.
type Locker struct {
	*Manager
	alg  Algorithm
	c    Config
	life lifecycle.Tracker[*held.Lock]

	closeOnce sync.Once // the Algorithm is closed once
	closeErr  error
}

// NewLocker returns the Locker of alg; its errors are New's.
func NewLocker(alg Algorithm, c Config) (*Locker, error) {
	m, err := New(c.Separator, c.Clock, c.Detector, c.Knobs)
	if err != nil {
		return nil, err
	}
	return &Locker{Manager: m, alg: alg, c: c}, nil
}

// Algorithm returns the Locker's algorithm: for a composer of this module,
// which takes an algorithm's parts directly (package combined).
func (l *Locker) Algorithm() Algorithm { return l.alg }

// Lock blocks until id is held or ctx is done.
func (l *Locker) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.group(ctx, Who{}, []lockstep.Request{{ID: id}}, false)
}

// TryLock makes one attempt, failing with lockstep.ErrLocked.
func (l *Locker) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return l.group(ctx, Who{}, []lockstep.Request{{ID: id}}, true)
}

// LockGroup blocks until every request is held, as one lock, or ctx is
// done (doc.go: the plan, the order, the rollback).
func (l *Locker) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.group(ctx, Who{}, reqs, false)
}

// TryLockGroup is LockGroup with TryLock's semantics for each member.
func (l *Locker) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return l.group(ctx, Who{}, reqs, true)
}

// group is every acquisition of the Locker: the Manager's run of reqs for
// who (a Unit's, or none), each member taken by one.
func (l *Locker) group(ctx context.Context, who Who, reqs []lockstep.Request, try bool) (lockstep.Lock, error) {
	run := l.Start(ctx, who, reqs, try)
	for run.Next() {
		run.Done(l.one(run.Step()))
	}
	return run.Result()
}

// one is the acquisition of one flat id: it validates the id, registers
// the call (Close ends its ctx), runs the Algorithm's Take, holds and
// tracks what it took (so that Close releases it) and reports one
// AcquireEvent. An error Close caused wraps lockstep.ErrClosed.
func (l *Locker) one(st Step) (lockstep.Lock, error) {
	if err := lockstep.ValidateID(st.ID); err != nil {
		return nil, err
	}
	octx := st.Ctx()
	ctx, done, err := l.life.Enter(octx)
	if err != nil {
		return nil, fmt.Errorf("%s: %q: %w", l.c.Name, st.ID, err)
	}
	defer done()
	start := l.c.Clock.Elapsed()
	a := &Acquisition{ID: st.ID, Access: st.Access, Try: st.Try, Mode: l.c.Mode, step: st}
	spec, err := l.alg.Take(ctx, a)
	var lk *held.Lock
	switch {
	case err == nil:
		lk = l.Hold(spec) // before the call ends, so that Close releases it
	case lifecycle.ClosedBy(ctx):
		err = fmt.Errorf("%s: %q: %w", l.c.Name, st.ID, lockstep.ErrClosed)
	}
	e := lockstep.AcquireEvent{ID: st.ID, Mode: a.Mode, Access: st.Access, Try: st.Try, Acquired: lk != nil, Err: err,
		Attempts: a.Attempts, Requests: a.Requests, Wait: time.Duration(l.c.Clock.Elapsed()-start) * time.Microsecond}
	if lk != nil {
		e.Owner = lk.Owner()
	}
	l.c.Observer.ObserveAcquire(octx, e)
	if err != nil {
		return nil, err
	}
	return held.Public(lk), nil
}

// Hold returns the held lock of spec, with the Locker's clock and
// observer, tracked until its cells are deleted so that Close releases it.
func (l *Locker) Hold(spec held.Spec) *held.Lock {
	spec.Clock, spec.Observer = l.c.Clock, l.c.Observer
	var lk *held.Lock
	spec.OnReleased = func() { l.life.Untrack(lk) }
	lk = held.New(spec)
	l.life.Track(lk)
	return lk
}

// Adopt makes the Locker a holder of the locks tok names (lockstep.Sharer)
// through its Algorithm, which must be an Adopter: a flat lock as the
// Algorithm adopted it, a group as one Lock like the giver's (Adopted).
// Close ends it, as it ends a Lock.
func (l *Locker) Adopt(ctx context.Context, tok string) (lockstep.Lock, error) {
	return l.adopt(ctx, nil, tok)
}

// adopt is Adopt for holder (a Unit's; nil for none): with one, the lock
// joins the holder as if it had taken it (AdoptedFor), and a member the
// holder holds by the same acquisition (HeldFor) is counted, not adopted
// again.
func (l *Locker) adopt(ctx context.Context, holder any, tok string) (lockstep.Lock, error) {
	ad, ok := l.alg.(Adopter)
	if !ok {
		return nil, fmt.Errorf("%w: %s: this Locker cannot adopt a shared lock", lockstep.ErrIncompatibleMode, l.c.Name)
	}
	cctx, done, err := l.life.Enter(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: adopt: %w", l.c.Name, err)
	}
	defer done()
	var skip func(string, lockstep.Access, string) bool
	if holder != nil {
		skip = func(id string, a lockstep.Access, owner string) bool { return l.HeldFor(holder, id, a, owner) }
	}
	id, plan, group, specs, err := ad.Adopt(cctx, tok, skip)
	if err != nil {
		if lifecycle.ClosedBy(cctx) {
			return nil, fmt.Errorf("%s: adopt: %w", l.c.Name, lockstep.ErrClosed)
		}
		return nil, err
	}
	locks := make([]lockstep.Lock, len(specs))
	for i, s := range specs {
		if s != nil { // nil: a member the holder holds, counted by AdoptedFor
			locks[i] = held.Public(l.Hold(*s))
		}
	}
	if holder != nil {
		g, err := l.AdoptedFor(holder, id, plan, locks)
		if err != nil {
			for _, lk := range locks {
				if lk != nil {
					err = errors.Join(err, lk.Unlock(context.WithoutCancel(ctx)))
				}
			}
			return nil, err
		}
		return g, nil
	}
	if !group {
		return locks[0], nil
	}
	return l.Adopted(id, plan, locks), nil
}

// Call runs f, a call of the Locker that is not an acquisition (a
// readiness check), as one of its calls: after Close it returns
// lockstep.ErrClosed without running f, and Close ends f's ctx and waits
// for it.
func (l *Locker) Call(ctx context.Context, f func(ctx context.Context) error) error {
	ctx, done, err := l.life.Enter(ctx)
	if err != nil {
		return err
	}
	defer done()
	return f(ctx)
}

// Close makes further calls fail with lockstep.ErrClosed, ends the calls
// in flight and waits for them, releases every lock still held (bounded
// by ctx), then closes the Algorithm (once: a later Close returns the
// first one's error of the Algorithm).
func (l *Locker) Close(ctx context.Context) error {
	err := l.life.Close(ctx)
	l.closeOnce.Do(func() { l.closeErr = l.alg.Close(ctx) })
	return errors.Join(err, l.closeErr)
}

var (
	_ lockstep.GroupLocker = (*Locker)(nil)
	_ lockstep.UnitLocker  = (*Locker)(nil)
)
