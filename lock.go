package lockstep

import "context"

// Locker acquires distributed locks identified by strings.
//
// Implementations in this module are safe for concurrent use by multiple
// goroutines. The context bounds only the wait for a lock, never the lease of a
// lock once held: cancelling ctx after Lock returned does not release anything.
type Locker interface {
	// Lock blocks until the lock named id is held by this caller or ctx is
	// done. When ctx ends first, Lock returns an error for which
	// errors.Is(err, ctx.Err()) holds and leaves no cell of its own behind in
	// the store (beyond what the store's TTL removes if the cleanup itself
	// fails).
	Lock(ctx context.Context, id string) (Lock, error)

	// TryLock makes one attempt to take the lock named id. It returns an
	// error wrapping ErrLocked when another acquisition holds or is ahead in
	// line for the lock, and leaves nothing behind in that case.
	TryLock(ctx context.Context, id string) (Lock, error)
}

// Lock is a held lock: the handle one acquisition returns.
//
// A Lock is safe for concurrent use; Unlock may race with the lease's own
// renewal and with other Unlock calls.
type Lock interface {
	// ID is the lock's name, as passed to Lock or TryLock.
	ID() string

	// Owner is the identity this acquisition wrote into the store. It is
	// unique per acquisition, not per process.
	Owner() string

	// Mode is the mode the lock was taken in.
	Mode() Mode

	// Lost is closed when the lease could not be kept: no renewal succeeded
	// for half the TTL, so another process may acquire the lock soon. The
	// holder must stop the work the lock protects.
	Lost() <-chan struct{}

	// Unlock releases exactly the cells this acquisition wrote and stops its
	// renewal, waiting for it to end. It is idempotent: later calls return
	// nil. If the lease had been lost before, Unlock still cleans up and
	// returns an error wrapping ErrLost, so the caller learns that its
	// critical section may not have been exclusive. If the store cannot be
	// reached, the cells expire after their TTL.
	Unlock(ctx context.Context) error
}

// Fenced is implemented by locks that carry a fencing token: a number that
// strictly increases across successive owners of the same lock id, so a
// resource can reject writes from a holder whose lease lapsed.
type Fenced interface {
	Token() int64
}
