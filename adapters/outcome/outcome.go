package outcome

import (
	"context"
	"errors"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
)

// Result is how one Lock or TryLock call ended. Its String is the label value
// the adapters export; the set is closed, so a label holding it is bounded.
type Result uint8

// The results, most specific first in the order Acquire tests them.
const (
	Acquired         Result = iota // the call returned a lock
	NotAcquired                    // lockstep.ErrLocked: held, or another acquisition is ahead
	Refused                        // lockstep.ErrIncompatibleMode: the fleet's phase forbids the flag's mode
	FlagError                      // the flag source failed or answered no valid mode
	StaleCensus                    // migration.ErrStaleCensus: the census heartbeat is not fresh
	Canceled                       // context.Canceled
	DeadlineExceeded               // context.DeadlineExceeded
	Lost                           // lockstep.ErrLost: a lease was lost during the acquisition
	ForeignCell                    // lockstep.ErrForeignCell: another writer shares the table
	UnknownOutcome                 // lockstep.ErrUnknownOutcome: a store request timed out
	Closed                         // lockstep.ErrClosed
	Error                          // any other error (a store error, say)
	NumResults                     // the number of results, for arrays indexed by Result
)

var resultNames = [NumResults]string{
	Acquired: "acquired", NotAcquired: "not_acquired", Refused: "refused", FlagError: "flag_error",
	StaleCensus: "stale_census", Canceled: "canceled", DeadlineExceeded: "deadline_exceeded", Lost: "lost",
	ForeignCell: "foreign_cell", UnknownOutcome: "unknown_outcome", Closed: "closed", Error: "error",
}

// String returns the label value, e.g. "not_acquired".
func (r Result) String() string {
	if r < NumResults {
		return resultNames[r]
	}
	return "error"
}

// Failed reports whether r is an error other than the expected refusal of a
// TryLock (NotAcquired): what the semantic conventions call error.type.
func (r Result) Failed() bool { return r != Acquired && r != NotAcquired }

// Acquire classifies an acquisition. An event without Acquired and without an
// error (which no locker of this module sends) counts as Error. The migration
// layer reports a failed flag read as an event in lockstep.ModeUnknown, and
// that is the only event in that mode (invalid ids and closed lockers return
// before any event), so ModeUnknown with an error not otherwise classified is
// FlagError; a flag read ended by ctx counts as Canceled or
// DeadlineExceeded.
func Acquire(e *lockstep.AcquireEvent) Result {
	if e.Acquired {
		return Acquired
	}
	err := e.Err
	switch {
	case err == nil:
		return Error
	case errors.Is(err, lockstep.ErrLocked):
		return NotAcquired
	case errors.Is(err, lockstep.ErrIncompatibleMode):
		return Refused
	case errors.Is(err, migration.ErrStaleCensus):
		return StaleCensus
	case errors.Is(err, context.Canceled):
		return Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return DeadlineExceeded
	case e.Mode == lockstep.ModeUnknown || errors.Is(err, lockstep.ErrInvalidMode):
		return FlagError
	case errors.Is(err, lockstep.ErrLost):
		return Lost
	case errors.Is(err, lockstep.ErrForeignCell):
		return ForeignCell
	case errors.Is(err, lockstep.ErrUnknownOutcome):
		return UnknownOutcome
	case errors.Is(err, lockstep.ErrClosed):
		return Closed
	}
	return Error
}

// Refusal returns the configured mode and the fleet phase of an acquisition
// the migration layer refused (its error is a *migration.ModeError), and ok
// false for any other event. The phase's text is one of a handful ("new",
// "pending:combined->new", ...), so it is a bounded label value.
func Refusal(e *lockstep.AcquireEvent) (configured lockstep.Mode, phase migration.Phase, ok bool) {
	me, ok := errors.AsType[*migration.ModeError](e.Err) // false for a nil Err
	if !ok {
		return lockstep.ModeUnknown, migration.Phase{}, false
	}
	return me.Configured, me.Phase, true
}

// ModeIndex returns m's index in arrays of NumModes entries: the four values
// of lockstep.Mode, anything else folded into ModeUnknown.
func ModeIndex(m lockstep.Mode) int {
	if m > lockstep.ModeNew {
		return int(lockstep.ModeUnknown)
	}
	return int(m)
}

// NumModes is the length of arrays indexed by ModeIndex.
const NumModes = int(lockstep.ModeNew) + 1

// Call returns "try_lock" for a TryLock and "lock" for a Lock.
func Call(try bool) string {
	if try {
		return "try_lock"
	}
	return "lock"
}

// Release is how one Unlock that released cells ended.
type Release uint8

// The release results.
const (
	Released    Release = iota // released in time
	ReleaseLost                // the lease had been lost before the Unlock (lockstep.ErrLost)
	ReleaseErr                 // the release's store requests failed; the cells expire by TTL
	NumReleases
)

var releaseNames = [NumReleases]string{Released: "released", ReleaseLost: "lost", ReleaseErr: "error"}

// String returns the label value.
func (r Release) String() string {
	if r < NumReleases {
		return releaseNames[r]
	}
	return "error"
}

// ReleaseOf classifies a release: a lost lease first, since its Unlock
// reports ErrLost whatever its deletes did.
func ReleaseOf(e *lockstep.ReleaseEvent) Release {
	switch {
	case e.WasLost || errors.Is(e.Err, lockstep.ErrLost):
		return ReleaseLost
	case e.Err != nil:
		return ReleaseErr
	}
	return Released
}
