package lockstep

import (
	"context"
	"time"
)

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

	// TryLock takes the lock named id only if nobody else holds it or is
	// ahead in line for it; it never waits for a holder. It returns an error
	// wrapping ErrLocked when another acquisition holds the lock or is ahead
	// in line, and leaves nothing behind in that case. A merely concurrent
	// attempt (nobody holds the lock, but another caller tried at the same
	// instant, as listing 4's ConcurrentAttempt) is not a reason to fail:
	// TryLock retries it, at most MaxTryAttempts attempts in all, after a
	// short randomized backoff where the algorithm needs one to break the
	// tie (listing 5's uniform [0, 50·attempt ms] for the legacy lock), and
	// returns ErrLocked only if every attempt met contention. So callers
	// retrying TryLock in a loop make progress. ctx bounds the attempts and
	// the backoff; when it ends first, TryLock returns an error for which
	// errors.Is(err, ctx.Err()) holds, having deleted its cells.
	TryLock(ctx context.Context, id string) (Lock, error)

	// Close makes further calls fail with an error wrapping ErrClosed, ends
	// the calls in flight (they clean up and return ErrClosed), releases
	// every lock the Locker still holds, retrying releases that failed
	// before, and stops its goroutines. ctx bounds the store requests; what
	// they cannot delete expires after its TTL. Errors are joined.
	Close(ctx context.Context) error
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

	// Lost is closed when the lease could not be kept: no write sent within
	// the lease window, (TTL − 1s − MaxServerSkew)/2 of elapsed time,
	// succeeded, so the cells may expire soon and another process acquire.
	// It checks the deadline itself each time it is called. The holder must
	// stop the work the lock protects.
	Lost() <-chan struct{}

	// Unlock releases exactly the cells this acquisition wrote and stops its
	// renewal, waiting for it to end. ctx bounds the store requests.
	//
	// Idempotent in effect: once a call has released the lock, every later
	// call returns nil at once. Concurrent calls serialize: each returns
	// only after the release it observed has finished (the cells deleted or
	// the delete failed), never while another call's delete is in flight; a
	// call whose ctx ends while it waits for another returns an error for
	// which errors.Is(err, ctx.Err()) holds, having changed nothing.
	//
	// If the delete fails (a store error, or ctx ended: then errors.Is(err,
	// ctx.Err()) holds), Unlock returns that error and the lock stays
	// releasable: renewal stays stopped, and the next Unlock retries the
	// delete (so does the Locker's Close, where it has one). If nobody
	// retries, the cells expire after their TTL. A wrapper
	// holding several locks (combined) retries only the parts that failed.
	//
	// If the lease had been lost before, the first call to complete still
	// cleans up and returns an error wrapping ErrLost (joined with any
	// delete error), so the caller learns that its critical section may not
	// have been exclusive; later calls do not report the loss again.
	Unlock(ctx context.Context) error
}

// Fenced is implemented by locks that carry a fencing token: a number that
// strictly increases across successive owners of the same lock id, so a
// resource can reject writes from a holder whose lease lapsed. Only locks of
// a Locker built with fencing implement it (their token is never 0): a type
// assertion tells whether fencing is on.
type Fenced interface {
	Token() int64
}

// Expiring is implemented by the locks of this module's Lockers: how long a
// held lock is certain to stay valid. It is for a process that must tell
// another how long a lock is safe — lockd tells its clients in each
// KeepAlive answer — rather than let it watch Lost().
type Expiring interface {
	// ValidFor returns how long from now, on this process's monotonic
	// clock, the lock stays valid even if no renewal succeeds from now on:
	// the time left until Lost() closes by its deadline. It is 0 once Lost()
	// is closed or Unlock has begun. Whoever passes it on must count it from
	// an instant no later than the call (lockd's clients count it from the
	// send of the KeepAlive that carried it), never from when it arrives.
	ValidFor() time.Duration
}

// Reentrant is implemented by every Lock a Unit's Lock, TryLock,
// LockGroup or TryLockGroup returns (seed 003's ALREADY_LOCKED): whether
// the call only counted. Reentrant() is true when every member the call
// asked for — each id, and the intention locks a hierarchical id takes on
// its ancestors — was one the unit already held in an access covering it,
// so the call took nothing and sent no store request; false when it took
// at least one member. A first Lock of "rx/2" while the unit holds "rx/1"
// shares the intention lock on "rx" but takes "rx/2": false. Either way the
// Lock must be unlocked once. Use IsReentrant for a Lock of any kind.
type Reentrant interface {
	Reentrant() bool
}

// IsReentrant reports whether l was granted by reentrancy alone (Reentrant):
// l.Reentrant() if l implements Reentrant, false otherwise — a Lock taken
// outside a unit of work never is.
func IsReentrant(l Lock) bool {
	r, ok := l.(Reentrant)
	return ok && r.Reentrant()
}

// MaxTryAttempts bounds the attempts of one TryLock that meets only
// concurrent attempts (nobody holding the lock, but others trying at the
// same instant): after that many TryLock gives up with ErrLocked.
const MaxTryAttempts = 4
