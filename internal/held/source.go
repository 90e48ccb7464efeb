package held

import (
	"context"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/setup"
)

// Request asks an algorithm's Locker for one part of an acquisition.
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

// Acquirer takes one part: no fencing token, no Observer event, no tracking
// for Close (the Locker returning the whole Lock does those). On error
// nothing of the part is held.
type Acquirer func(ctx context.Context, r Request) (Result, error)

// Source is what a composing Locker needs of an algorithm's Locker.
type Source struct {
	Acquire  Acquirer
	Clock    lockstep.Clock
	Process  string
	Observer lockstep.Observer
	Owners   *setup.Owners // the Locker's owner-id issuer
	// UseOwners replaces the Locker's owner-id issuer. Only for a Locker
	// that has taken no lock yet (see ShareOwners).
	UseOwners func(*setup.Owners)
	// Prepare, when set, starts taking a part whose first round runs up to
	// its decision at once and then waits for Prepared.Go: package combined
	// runs the legacy half's round beside the queue half's claim. Nil for
	// an algorithm that has no such split.
	Prepare func(ctx context.Context, r Request) Prepared
	// One is the Locker's acquisition of one flat id in an access (with
	// try: one attempt), below its own lock manager: for a composing
	// Locker that applies the manager itself (package migration).
	One func(ctx context.Context, id string, a lockstep.Access, try bool) (lockstep.Lock, error)
	// CheckShareToken, when set, checks with no request that the Locker
	// could adopt a share token, and returns the handle's id and the
	// members it names (queuelock's; package migration checks a token with
	// it before its admission).
	CheckShareToken func(tok string) (id string, members []lockstep.Request, err error)
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

// Key is what a composing Locker of this module presents to an algorithm's
// Locker to take parts from it (queuelock.Locker.Parts,
// shadowlock.Locker.Parts). Its type is internal to the module and has a
// blank field (no struct literal written elsewhere is of its type), so no
// caller outside the module can name or build one:
// those methods are this module's business, though exported.
type Key struct{ _ struct{} }

// ShareOwners makes the Lockers of bs draw their owner ids from a's issuer,
// so that one process's owner ids are unique across its queue and legacy
// Lockers: a new lock and a legacy lock of one process are then never both
// "<process>.1", in logs, events, lockctl or the model checks' ownership
// records. Call it only on Lockers that have taken no lock yet (just built),
// with the same process id.
func ShareOwners(a Source, bs ...Source) {
	for _, b := range bs {
		b.UseOwners(a.Owners)
	}
}
