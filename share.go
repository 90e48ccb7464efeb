package lockstep

import (
	"context"
	"errors"
)

// Sharer is implemented by the Lockers that let several processes share one
// owner identity and hand held locks over without releasing them (seed
// 003's real and effective identifiers, getToken and setToken): in this
// module, the queue lock's (package queuelock) and the migration Locker's
// for locks it took in mode new (package migration, which admits an Adopt
// as a Lock in mode new). The combined Locker does not implement it, and
// legacy or combined locks cannot be shared: they also hold legacy cells,
// whose algorithm has one renewer per owner and would not see a second one.
//
// A handover is Share, then Adopt, then the giver's Unlock:
//
//	tok, err := giver.Share(l)            // on the process that holds l
//	// ... send tok to the receiver ...
//	l2, err := receiver.Adopt(ctx, tok)   // same ID, Owner and Token as l
//	// ... tell the giver; only then:
//	err = l.Unlock(ctx)                   // the giver leaves; l2 still holds
//
// Between Adopt and the giver's Unlock both processes hold the lock under
// one identity, and both renew it. Once shared, a lock is released when the
// last process holding it leaves: each one's Unlock stops its own renewals
// and, unless another holder is still in the store, deletes the lock's
// cells. No third process can acquire during the handover, and a giver
// that crashes before it unlocks only delays the release until its own
// cells expire. If the giver's Lost() is still open when it learns that
// Adopt succeeded, the lock was held without a gap throughout; if not,
// its lease lapsed first, and the receiver's lock, though exclusive, may
// follow another process's holding (its fencing token is then the older).
// After Unlock, the giver's Lock is ended, not lost: its Lost() does not
// close because of the handover. docs/algorithms.md, section 8.7, has the
// argument.
type Sharer interface {
	// Share returns a token naming l, a lock this Locker returned and still
	// holds, for another process's Adopt. It sends no request and l keeps
	// its lease: the giver must not Unlock l before the receiver's Adopt
	// returned, or the lock may be released with nobody left to hold it.
	// From Share on, l's Unlock leaves the lock to any other holder instead
	// of deleting it. A lock this Locker did not return, a released or lost
	// one, or a lock the Locker cannot share (one of a combined lock)
	// returns an error and changes nothing.
	Share(l Lock) (string, error)
	// Adopt makes this Locker a holder of the locks tok names, under the
	// same owner identity, Lock ID and fencing token, and returns them as
	// one Lock. It verifies that another holder still holds each of them in
	// the store, adds this process's own renewed claim and reads again; if
	// any lock is not held any more (released, expired, or kept in another
	// keyspace), it withdraws what it wrote and returns an error wrapping
	// ErrReleased. A malformed or tampered token, or one for another table,
	// scope or mode, returns an error wrapping ErrShareToken with no
	// request sent; one for an id this Locker is itself acquiring or
	// holding returns an error wrapping ErrLocked. Beside another owner's
	// claim in progress it withdraws and tries again a poll later. When
	// ctx ends first, it withdraws what it wrote and returns an error for
	// which errors.Is(err, ctx.Err()) holds.
	//
	// The returned Lock's Lost is this process's own: closed when its own
	// renewals can no longer vouch for the lease, whatever the giver's do.
	Adopt(ctx context.Context, tok string) (Lock, error)
}

// ErrShareToken is returned by Adopt for a token that is not one Share of
// a compatible Locker produced: malformed, tampered with, of another
// version, or naming another table, scope or mode.
var ErrShareToken = errors.New("lockstep: invalid share token")
