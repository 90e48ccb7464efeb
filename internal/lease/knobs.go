package lease

import (
	"context"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// TestingKnobs switch on this package's planted defects: deliberate bugs
// that the model checks' negative controls (propertytests/doc.go) switch on
// to prove that their properties catch them. They reach the lease through
// Config.Knobs, which every Locker fills from its Options.TestingKnobs;
// production code leaves them nil.
type TestingKnobs struct {
	// HalfTTLLease makes the lease window TTL/2 from the send, whatever the
	// TTL, ignoring whole-second expiry and server clock skew, and accepts
	// any TTL of at least one second.
	HalfTTLLease bool
	// LostTrustsScheduler makes Lost, IsLost and Remaining trust the
	// Scheduler to close Lost at the deadline instead of checking it
	// themselves: the scheduler
	// wakes late whenever its process was paused, and a holder that looks at
	// Lost first then works past the deadline.
	LostTrustsScheduler bool
	// RenewFromStart dates the first renewal from Start instead of from the
	// winning write's send: an acquisition slower than Window − Renew loses
	// a healthy lease before renewing once.
	RenewFromStart bool
	// RemainingPastDeadline makes Remaining report this much more than the
	// time left to the deadline: a holder, or a lockd client, told the lock
	// is safe for that long works on after the cells may have expired.
	RemainingPastDeadline time.Duration
}

// knobs returns c's knobs; the zero value (no defect) when there are none.
func (c Config) knobs() TestingKnobs {
	if c.Knobs == nil {
		return TestingKnobs{}
	}
	return *c.Knobs
}

// WallClock returns a clock whose elapsed time is c's wall clock. It is the
// planted defect WallClockLease: a Locker given it measures lease deadlines
// and in-time checks on the wall clock, so a wall-clock step back keeps
// Lost() open past the cells' expiry. Only the negative controls use it.
func WallClock(c lockstep.Clock) lockstep.Clock { return wallClock{c} }

// wallClock passes everything but Elapsed to the clock it wraps, a
// simulator's goroutine bookkeeping included.
type wallClock struct{ lockstep.Clock }

func (w wallClock) Elapsed() int64              { return w.Now() }
func (w wallClock) Go(f func())                 { lifecycle.Go(w.Clock, f) }
func (w wallClock) Resumed(ctx context.Context) { lifecycle.Resumed(ctx, w.Clock) }
