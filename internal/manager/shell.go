// Shell (shell.go) is what every algorithm's Locker of this module is
// around its algorithm, written once: the Manager on top of its
// acquisition of one id, the calls in flight and the locks held that Close
// ends and releases (internal/lifecycle.Tracker), the held lock built from
// what the algorithm took (internal/held), and the one AcquireEvent per
// acquisition. An algorithm gives NewShell its Take; queuelock, shadowlock
// and combined each hold one Shell.

package manager

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deadlock"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// Stats are an acquisition's counts for its AcquireEvent. A Take sets them
// whether or not it succeeds.
type Stats struct{ Attempts, Requests int }

// Take is an algorithm's acquisition of one flat id, valid, in access a
// (or, with try, one attempt, failing with an error wrapping
// lockstep.ErrLocked), for its Shell. ctx is bound to the Shell: Close
// ends it. On success it returns what the algorithm knows of the held
// lock (held.Spec's ID, Owner, LegacyOwner, Mode, Token, Parts,
// ParallelRelease, Loss and Since); the Shell adds the rest. On error it
// holds nothing.
type Take func(ctx context.Context, id string, a lockstep.Access, try bool, st *Stats) (held.Spec, error)

// ShellConfig is what NewShell needs of a Locker.
type ShellConfig struct {
	Name     string        // the package: prefixes the error of a call Close ended
	Mode     lockstep.Mode // reported in every AcquireEvent
	Clock    lockstep.Clock
	Observer lockstep.Observer
	Take     Take
	// Separator, Detector and Knobs are the Manager's (New).
	Separator string
	Detector  *deadlock.Detector
	Knobs     *TestingKnobs
}

// Shell is a Locker's Manager, the calls and locks Close ends, and its
// acquisition of one id around the algorithm's Take. Its Manager's methods
// (Lock, Group, UnlockAll, Adopted, Separator) are the Locker's Lock,
// TryLock, LockGroup, TryLockGroup and UnlockAll. Safe for concurrent use.
type Shell struct {
	*Manager
	c    ShellConfig
	life lifecycle.Tracker[*held.Lock]
}

// NewShell returns the Shell of a Locker; its errors are New's.
func NewShell(c ShellConfig) (*Shell, error) {
	s := &Shell{c: c}
	m, err := New(c.Separator, s.acquire, c.Clock, c.Detector, c.Knobs)
	if err != nil {
		return nil, err
	}
	s.Manager = m
	return s, nil
}

// One returns the Shell's acquisition of one flat id, below its Manager:
// for a composing Locker that applies a Manager of its own (package
// migration).
func (s *Shell) One() One { return s.acquire }

// acquire is the Shell's acquisition of one id, the One its Manager calls:
// it validates id, registers the call (Close ends it), runs Take, holds
// what it took and reports one AcquireEvent. An error of a call that Close
// ended wraps lockstep.ErrClosed.
func (s *Shell) acquire(ctx context.Context, id string, access lockstep.Access, try bool) (lockstep.Lock, error) {
	if err := lockstep.ValidateID(id); err != nil {
		return nil, err
	}
	octx := ctx
	ctx, done, err := s.life.Enter(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	start := s.c.Clock.Elapsed()
	var st Stats
	spec, err := s.c.Take(ctx, id, access, try, &st)
	var lk *held.Lock
	switch {
	case err == nil:
		lk = s.Hold(spec) // before the call ends, so that Close releases it
	case lifecycle.ClosedBy(ctx):
		err = fmt.Errorf("%s: %q: %w", s.c.Name, id, lockstep.ErrClosed)
	}
	e := lockstep.AcquireEvent{ID: id, Mode: s.c.Mode, Access: access, Try: try, Acquired: lk != nil, Err: err,
		Attempts: st.Attempts, Requests: st.Requests, Wait: time.Duration(s.c.Clock.Elapsed()-start) * time.Microsecond}
	if lk != nil {
		e.Owner = lk.Owner()
	}
	s.c.Observer.ObserveAcquire(octx, e)
	if err != nil {
		return nil, err
	}
	return held.Public(lk), nil
}

// Hold returns the held lock of spec, with the Shell's clock and observer,
// tracked until its cells are deleted so that Close releases it. It is
// for acquisitions that do not go through Take (queuelock's Adopt).
func (s *Shell) Hold(spec held.Spec) *held.Lock {
	spec.Clock, spec.Observer = s.c.Clock, s.c.Observer
	var lk *held.Lock
	spec.OnReleased = func() { s.life.Untrack(lk) }
	lk = held.New(spec)
	s.life.Track(lk)
	return lk
}

// Do runs f, an acquisition that does not go through Take (a part for a
// composing Locker, an adoption), as a call of the Shell: it validates id,
// f's ctx is ended by Close, and an error of f that Close caused wraps
// lockstep.ErrClosed.
func (s *Shell) Do(ctx context.Context, id string, f func(ctx context.Context) error) error {
	return s.life.Do(ctx, s.c.Name, id, f)
}

// Close makes further calls fail with lockstep.ErrClosed, ends the calls in
// flight and waits for them, then releases every lock still held (bounded
// by ctx). A Locker closes what it owns (its lease scheduler, its Lockers)
// after this.
func (s *Shell) Close(ctx context.Context) error { return s.life.Close(ctx) }
