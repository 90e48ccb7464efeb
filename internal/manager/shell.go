// Shell (shell.go) is what every algorithm's Locker of this module holds
// beside its algorithm, written once: its Manager, the calls in flight and
// the locks held that Close ends and releases (internal/lifecycle.Tracker),
// and the two ends of its acquisition of one id, which the Locker calls
// down into around its own take: Begin (validate the id, register the
// call) and Call.End (the held lock built from what the algorithm took,
// tracked until released, and the one AcquireEvent). queuelock, shadowlock
// and combined each hold one Shell; it holds no function of theirs.

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

// Stats are an acquisition's counts for its AcquireEvent. A Locker's take
// sets them whether or not it succeeds.
type Stats struct{ Attempts, Requests int }

// ShellConfig is what NewShell needs of a Locker.
type ShellConfig struct {
	Name     string        // the package: prefixes the error of a call Close ended
	Mode     lockstep.Mode // reported in every AcquireEvent
	Clock    lockstep.Clock
	Observer lockstep.Observer
	// Separator, Detector and Knobs are the Manager's (New).
	Separator string
	Detector  *deadlock.Detector
	Knobs     *TestingKnobs
}

// Shell is a Locker's Manager and the calls and locks Close ends. A
// Locker's acquisition of one id calls Begin, runs its algorithm's take
// with the ctx Begin returned, and ends with the Call's End, which holds
// what was taken and reports it. Its Manager's methods (Lock, Group,
// UnlockAll, Adopted, Separator) are the Locker's Lock, TryLock,
// LockGroup, TryLockGroup and UnlockAll. Safe for concurrent use.
type Shell struct {
	*Manager
	c    ShellConfig
	life lifecycle.Tracker[*held.Lock]
}

// NewShell returns the Shell of a Locker; its errors are New's.
func NewShell(c ShellConfig) (*Shell, error) {
	s := &Shell{c: c}
	m, err := New(c.Separator, c.Clock, c.Detector, c.Knobs)
	if err != nil {
		return nil, err
	}
	s.Manager = m
	return s, nil
}

// Call is one acquisition of one id in progress, between the Shell's Begin
// and its End.
type Call struct {
	s      *Shell
	octx   context.Context // the caller's: the event is reported with it
	ctx    context.Context // bound to the Shell: Close ends it
	done   func()
	id     string
	access lockstep.Access
	try    bool
	start  int64
}

// Begin starts a Locker's acquisition of one flat id in access (with try:
// one attempt): it validates id and registers the call, so that Close ends
// it. The Locker then runs its algorithm's take with the returned ctx,
// which Close ends, and passes what it took to the Call's End. On error
// nothing was registered, no event is reported, and End must not be
// called.
func (s *Shell) Begin(ctx context.Context, id string, access lockstep.Access, try bool) (*Call, context.Context, error) {
	if err := lockstep.ValidateID(id); err != nil {
		return nil, nil, err
	}
	c := &Call{s: s, octx: ctx, id: id, access: access, try: try}
	var err error
	if c.ctx, c.done, err = s.life.Enter(ctx); err != nil {
		return nil, nil, err
	}
	c.start = s.c.Clock.Elapsed()
	return c, c.ctx, nil
}

// End ends the call with what the algorithm's take returned: on success
// (err nil) what the algorithm knows of the held lock (held.Spec's ID,
// Owner, LegacyOwner, Mode, Token, Parts, ParallelRelease, Loss and Since),
// which End holds and tracks until its cells are deleted (so that Close
// releases it); st are the take's counts, success or not. It reports one
// AcquireEvent and returns the lock, or the error, which wraps
// lockstep.ErrClosed if Close ended the call. Call it once.
func (c *Call) End(spec held.Spec, err error, st Stats) (lockstep.Lock, error) {
	s := c.s
	defer c.done()
	var lk *held.Lock
	switch {
	case err == nil:
		lk = s.Hold(spec) // before the call ends, so that Close releases it
	case lifecycle.ClosedBy(c.ctx):
		err = fmt.Errorf("%s: %q: %w", s.c.Name, c.id, lockstep.ErrClosed)
	}
	e := lockstep.AcquireEvent{ID: c.id, Mode: s.c.Mode, Access: c.access, Try: c.try, Acquired: lk != nil, Err: err,
		Attempts: st.Attempts, Requests: st.Requests, Wait: time.Duration(s.c.Clock.Elapsed()-c.start) * time.Microsecond}
	if lk != nil {
		e.Owner = lk.Owner()
	}
	s.c.Observer.ObserveAcquire(c.octx, e)
	if err != nil {
		return nil, err
	}
	return held.Public(lk), nil
}

// Hold returns the held lock of spec, with the Shell's clock and observer,
// tracked until its cells are deleted so that Close releases it: End's,
// and queuelock's Adopt's.
func (s *Shell) Hold(spec held.Spec) *held.Lock {
	spec.Clock, spec.Observer = s.c.Clock, s.c.Observer
	var lk *held.Lock
	spec.OnReleased = func() { s.life.Untrack(lk) }
	lk = held.New(spec)
	s.life.Track(lk)
	return lk
}

// Do runs f, an acquisition that does not end in a held lock (a part for a
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
