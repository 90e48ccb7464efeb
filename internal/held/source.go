package held

import (
	"github.com/lockstep-go/lockstep"
)

// Request asks an algorithm's core for one part of an acquisition
// (queue.Locker.Acquire, shadow.Locker.Acquire and Prepare): no fencing
// token, no Observer event, no tracking for Close (the Locker returning
// the whole Lock does those). On error nothing of the part is held.
type Request struct {
	ID   string
	Try  bool          // TryLock's semantics: no waiting for a holder
	Mode lockstep.Mode // the mode the caller asked for, for log lines and lease events
	// Access is what the part asks of the id. An algorithm that knows only
	// exclusive locks (the legacy one) takes every part exclusively, which
	// excludes at least as much.
	Access lockstep.Access
	Loss   *Loss // the acquisition's loss signal: the part's lease fires it
	// Claims, when set, is told by a queue part of each of its claims
	// (Claims.Claiming): package combined takes the legacy half beside them
	// (claims.go). Nil: nothing runs beside the part.
	Claims *Claims
}

// Result is a part taken.
type Result struct {
	Part               Part
	Owner              string
	Since              int64 // elapsed µs: when the part's winning write was sent
	Attempts, Requests int
}

// Prepared is a part being taken whose first round waits, before it writes
// anything that would hold the lock, for the caller to say go on or give up.
type Prepared interface {
	// Go lets the acquisition go on — its first round decides, and the
	// rounds after it run as its algorithm's Acquire would — and waits for
	// its result. Call at most once, and not after Abort.
	Go() (Result, error)
	// Abort makes the acquisition end, holding nothing (its cells deleted);
	// it does not wait. Later calls do nothing.
	Abort()
	// Wait waits until an aborted acquisition has ended.
	Wait()
}
