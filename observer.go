package lockstep

import (
	"context"
	"time"
)

// Observer receives facts about acquisitions, releases and leases, for
// metrics. Calls are synchronous on the lock's goroutines and must return
// quickly; the library never holds a mutex while calling it. Implementations
// must be safe for concurrent use.
type Observer interface {
	ObserveAcquire(ctx context.Context, e AcquireEvent)
	ObserveRelease(ctx context.Context, e ReleaseEvent)
	ObserveLease(ctx context.Context, e LeaseEvent)
}

// AcquireEvent describes one finished Lock or TryLock call.
type AcquireEvent struct {
	ID       string
	Owner    string // empty when nothing was acquired
	Mode     Mode
	Access   Access        // what the acquisition asked of the id (Exclusive for Lock and TryLock)
	Try      bool          // TryLock rather than Lock
	Acquired bool          // whether the call returned a lock
	Err      error         // why not, when Acquired is false
	Attempts int           // claim attempts (writes of an owner cell)
	Wait     time.Duration // from the call to its return, by the locker's clock
	Requests int           // store requests the call made, in sequence
}

// ReleaseEvent describes one Unlock that released cells.
type ReleaseEvent struct {
	ID       string
	Owner    string
	Mode     Mode
	Held     time.Duration // from acquisition to release
	WasLost  bool
	Err      error
	Requests int
}

// LeaseEvent describes a renewal attempt or the loss of a lease.
type LeaseEvent struct {
	ID      string
	Owner   string
	Mode    Mode
	Renewed bool  // a renewal succeeded
	Lost    bool  // the lease was declared lost
	Err     error // the renewal's error, if any
}

// NopObserver ignores every event. Its zero value is ready to use.
type NopObserver struct{}

func (NopObserver) ObserveAcquire(context.Context, AcquireEvent) {}
func (NopObserver) ObserveRelease(context.Context, ReleaseEvent) {}
func (NopObserver) ObserveLease(context.Context, LeaseEvent)     {}

// WakeObserver is an optional interface of an Observer: a queue Locker with
// wake-ups on release (queuelock.Options.Wake) tells an Observer that also
// implements it when wake-ups stop arriving and when they arrive again.
// Being a separate interface, it leaves existing Observers unchanged.
type WakeObserver interface {
	ObserveWake(ctx context.Context, e WakeEvent)
}

// WakeEvent describes a change in whether a Locker's wake-ups arrive.
type WakeEvent struct {
	// Blocked is true when the Locker stopped expecting wake-ups: Missed
	// handoffs in a row, each one a release whose claim had seen the
	// waiter, were noticed by the waiter's own read with no wake-up
	// (datagrams lost or a port blocked, or releasers that send none). Its
	// waiters then read at the cadence they use without wake-ups. False
	// when a wake-up arrived again and the Locker went back to relying on
	// them.
	Blocked bool
	Missed  int
}
