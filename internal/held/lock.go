package held

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// Part is one algorithm's share of an acquisition: its cells and the lease
// renewing them. Lock calls its methods under the Lock's Unlock mutex, never
// two at a time.
type Part interface {
	// Stop ends the renewals and waits for any in flight, so that a delete
	// sent afterwards follows every rewrite; it reports whether the lease
	// had been lost. Called once, before the first Release.
	Stop() (lost bool)
	// Release deletes the part's cells and reports whether it sent a
	// request. After an error it may be called again, and retries only what
	// is left; once it succeeded, later calls return nil without a request.
	Release(ctx context.Context) (sent bool, err error)
	// Expired reports whether the lease's deadline has passed, declaring it
	// lost if so (the lease's hook then fires the acquisition's Loss).
	Expired() bool
}

// Spec is what New needs.
type Spec struct {
	ID, Owner string
	// LegacyOwner is the owner id in the legacy tables: Owner for a legacy
	// lock, the legacy part's for a combined one, "" for a new one.
	LegacyOwner string
	Mode        lockstep.Mode
	Token       int64
	// TokenLast is the last token of the block the acquisition reserved
	// (manager.Acquisition.TokenBlock): Token for a block of one, 0 without
	// fencing.
	TokenLast int64
	// Crowded reports that the acquisition's winning claim saw another
	// acquisition's queue cell in line (queue lock): a waiter that stays
	// until it acquires or gives up. A local-handoff layer then releases
	// the hold at its bound without looking for one (internal/cohort).
	Crowded  bool
	Parts    []Part // in the order taken; released in reverse
	Loss     *Loss  // fired by the parts' leases (and any other source)
	Since    int64  // elapsed µs: when the first part's winning write was sent
	Clock    lockstep.Clock
	Observer lockstep.Observer
	// OnStop runs once, at the first Unlock, after the parts stopped.
	OnStop func()
	// OnReleased runs once, when every part's cells are deleted.
	OnReleased func()
	// ParallelRelease sends the parts' deletes at once instead of last
	// taken first: for parts whose release order no safety argument needs
	// (docs/algorithms.md, section 6.1, says why a combined lock's two qualify).
	ParallelRelease bool
}

// Lock is a held acquisition. Safe for concurrent use.
type Lock struct {
	s Spec

	// mu is held for a whole Unlock, so concurrent calls serialize and none
	// returns while another's delete is in flight.
	mu       lifecycle.Mutex
	stopped  bool // the parts stopped: an Unlock ran
	released bool // every part released: later calls return nil
	// ending is set as the first Unlock begins, read without mu: from then
	// on the lock is no longer held (ValidFor).
	ending atomic.Bool
}

var (
	_ lockstep.Lock     = (*Lock)(nil)
	_ lockstep.Fenced   = Fenced{}
	_ lockstep.Expiring = (*Lock)(nil)
)

// Abandon gives up the parts of an acquisition that will not be returned
// (an adoption that failed on a later member, a migration acquisition whose
// census went stale): it stops each part and deletes its cells, last
// taken first; what a failed delete leaves expires after the TTL.
func (s Spec) Abandon(ctx context.Context) error {
	var errs []error
	for i := len(s.Parts) - 1; i >= 0; i-- {
		s.Parts[i].Stop()
		if _, err := s.Parts[i].Release(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// New returns the Lock of an acquisition whose parts are all held. Each
// part's Expired is already a source of s.Loss (its Acquirer registered it).
func New(s Spec) *Lock { return &Lock{s: s} }

func (l *Lock) ID() string          { return l.s.ID }
func (l *Lock) Owner() string       { return l.s.Owner }
func (l *Lock) Mode() lockstep.Mode { return l.s.Mode }

// LegacyOwner is the owner id written in the legacy tables ("" for a new
// lock): a combined lock's queue and legacy halves are numbered apart.
// lockctl's tests and the integration checks read it.
func (l *Lock) LegacyOwner() string { return l.s.LegacyOwner }

// Fenced is a Lock that carries a fencing token: what a Locker built with
// fencing returns (Public). A Lock without one does not implement
// lockstep.Fenced at all, so a caller learns whether fencing is on from a
// type assertion, not from a zero token.
type Fenced struct{ *Lock }

// Token is the fencing token drawn for this acquisition: never 0.
func (f Fenced) Token() int64 { return f.s.Token }

// Public returns l as a Locker hands it out: a Fenced if it carries a token
// (a Locker with fencing draws one for every acquisition), l itself if not.
func Public(l *Lock) lockstep.Lock {
	if l.s.Token != 0 {
		return Fenced{l}
	}
	return l
}

// Of returns the *Lock inside a lock Public returned, or nil for any other
// lock.
func Of(l lockstep.Lock) *Lock {
	switch h := l.(type) {
	case *Lock:
		return h
	case Fenced:
		return h.Lock
	}
	return nil
}

// Lost is closed once any lease of the acquisition is lost (or any other
// source of its Loss fires). It checks every deadline itself first.
func (l *Lock) Lost() <-chan struct{} { return l.s.Loss.C() }

// ValidFor follows lockstep.Expiring: the least time left of the
// acquisition's sources (every part's lease; a migration lock's census
// heartbeat), 0 once Lost is closed or an Unlock has begun. A Loss no
// source bounds counts as 0, never as unbounded.
func (l *Lock) ValidFor() time.Duration {
	if l.ending.Load() {
		return 0
	}
	if left := l.s.Loss.Remaining(); left != NoBound {
		return left
	}
	return 0
}

// Unlock follows lockstep.Lock's contract: concurrent calls serialize; the
// first stops every part's renewals and then deletes the parts' cells, last
// taken first (or all at once, Spec.ParallelRelease); a part whose delete failed is retried by the next call (or by
// Close of the Locker that returned the lock), the others are not; after
// every delete succeeded, calls return nil at once. After a loss the first
// call returns an error wrapping lockstep.ErrLost, joined with any delete
// error.
func (l *Lock) Unlock(ctx context.Context) error {
	if err := l.mu.Lock(ctx, l.s.Clock); err != nil {
		return fmt.Errorf("lockstep: unlock %q: waiting for another Unlock: %w", l.s.ID, err)
	}
	if l.released {
		l.mu.Unlock()
		return nil
	}
	first := !l.stopped
	l.ending.Store(true)
	lost := false
	if first {
		for _, p := range l.s.Parts {
			if p.Stop() {
				lost = true
			}
		}
		lost = lost || l.s.Loss.Fired()
		l.stopped = true
		if l.s.OnStop != nil {
			l.s.OnStop()
		}
	}
	requests, err := l.release(ctx)
	if err == nil {
		l.released = true
		if l.s.OnReleased != nil {
			l.s.OnReleased()
		}
	}
	l.mu.Unlock()
	l.s.Observer.ObserveRelease(ctx, lockstep.ReleaseEvent{ID: l.s.ID, Owner: l.s.Owner, Mode: l.s.Mode,
		WasLost: lost, Err: err, Requests: requests,
		Held: time.Duration(l.s.Clock.Elapsed()-l.s.Since) * time.Microsecond})
	if lost {
		return errors.Join(fmt.Errorf("lockstep: unlock %q (%v): %w", l.s.ID, l.s.Mode, lockstep.ErrLost), err)
	}
	return err
}

// release deletes every part's cells (ReleaseParts) and returns how many
// requests it sent; the errors are joined last taken first.
func (l *Lock) release(ctx context.Context) (int, error) {
	sent, errs := ReleaseParts(ctx, l.s.Clock, l.s.Parts, l.s.ParallelRelease)
	slices.Reverse(errs)
	requests := 0
	for _, s := range sent {
		if s {
			requests++
		}
	}
	return requests, errors.Join(errs...)
}

// ReleaseParts deletes the cells of parts, last taken first or, with
// parallel (Spec.ParallelRelease), all at once: the last part's on a
// goroutine of its own, the others on the caller's. It reports, per part,
// whether a request was sent and its error.
func ReleaseParts(ctx context.Context, clk lockstep.Clock, parts []Part, parallel bool) (sent []bool, errs []error) {
	sent, errs = make([]bool, len(parts)), make([]error, len(parts))
	last := len(parts) - 1
	var wg sync.WaitGroup
	for i := last; i >= 0; i-- {
		if parallel && i == last && last > 0 {
			wg.Add(1)
			lifecycle.Go(clk, func() {
				defer wg.Done()
				sent[i], errs[i] = parts[i].Release(ctx)
			})
			continue
		}
		sent[i], errs[i] = parts[i].Release(ctx)
	}
	wg.Wait()
	return sent, errs
}

// Loss returns the acquisition's loss signal, so that a wrapper adding a
// source of loss (migration's census epoch) can fire it and Watch it.
func (l *Lock) Loss() *Loss { return l.s.Loss }

// AddOnStop adds f to what the first Unlock runs after the parts stopped;
// if that Unlock has run already, f runs now. For a composing Locker that
// hands out a Lock another Locker built (migration's census count).
func (l *Lock) AddOnStop(f func()) {
	_ = l.mu.Lock(context.Background(), l.s.Clock) // a Background context never ends: no error
	defer l.mu.Unlock()
	if l.stopped {
		f()
		return
	}
	prev := l.s.OnStop
	l.s.OnStop = func() {
		if prev != nil {
			prev()
		}
		f()
	}
}

// Parts returns the acquisition's parts, for the Locker that built it
// (queuelock's Share reads its own part's cells from them).
func (l *Lock) Parts() []Part { return l.s.Parts }

// DrawnToken returns the fencing token, 0 for a lock without one. (Not
// Token: a *Lock without one must not be lockstep.Fenced.)
func (l *Lock) DrawnToken() int64 { return l.s.Token }

// Ended reports whether an Unlock has run (the parts are stopped).
func (l *Lock) Ended() bool {
	_ = l.mu.Lock(context.Background(), l.s.Clock) // a Background context never ends: no error
	defer l.mu.Unlock()
	return l.stopped
}
