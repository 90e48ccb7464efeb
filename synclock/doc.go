// Package synclock adapts one lockstep lock id to sync.Locker, for code
// written against sync.Mutex that cannot take a context: a cache's
// Mutex field, a library that accepts a sync.Locker.
//
// It sits above the algorithms: it calls any lockstep.Locker's Lock,
// TryLock and Unlock, and adds nothing to the algorithm.
//
// # Limits
//
// sync.Locker has no context and no error, and a distributed lock needs
// both. What this package does instead, so that nothing fails silently:
//
//   - Lock waits with no deadline, or at most Options.Timeout. It panics
//     when the Locker gives up for good (a permanent refusal such as a
//     missing permission or table, a foreign cell, a closed Locker) or the
//     Timeout passes: a *LockError, for which errors.Is works, so a
//     recover can tell why. Transient store errors do not panic: the
//     Locker retries them while it waits, as its Lock does.
//   - Unlock of a Mutex that is not locked panics, as sync.Mutex's does.
//     A failed release does not panic: the lock is released locally, the
//     error goes to Options.OnUnlockError, and the cells expire after their
//     TTL (the Locker's Close also retries the release).
//   - Loss is invisible to a sync.Locker caller: a lease can lapse while
//     the caller believes it holds the lock. Lost returns the holding's
//     loss signal; code that can look at it before each step should, and
//     the loss is also reported to OnUnlockError (lockstep.ErrLost).
//   - There is no fencing token through sync.Locker; Lock returns nothing.
//     Use the Locker directly where a resource needs tokens.
//
// # Concurrency
//
// A Mutex is safe for concurrent use, like sync.Mutex: goroutines of one
// process calling Lock wait for each other through the Locker (which lines
// them up with the other processes), and any goroutine may Unlock. It is
// not reentrant: Lock while holding waits for ever (or until Timeout).
package synclock
