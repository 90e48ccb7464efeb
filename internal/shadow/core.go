package shadow

import (
	"context"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/setup"
)

// What a composer of this module (package combined, package migration)
// calls on the legacy lock's core, directly.

// Acquire takes a legacy lock as one part of a larger acquisition
// (internal/held): no token, no Observer event, not tracked for Close. A
// Close of this Locker still ends the wait. It takes r.ID exclusively,
// whatever r.Access asks.
func (l *Locker) Acquire(ctx context.Context, r held.Request) (held.Result, error) {
	return l.part(ctx, r)
}

// Prepare starts taking a part whose first round runs up to its decision at
// once and then waits for held.Prepared.Go: package combined runs it beside
// the queue half's claim (docs/algorithms.md, section 6.1).
func (l *Locker) Prepare(ctx context.Context, r held.Request) held.Prepared {
	return l.prepare(ctx, r)
}

// Owners is the issuer this Locker draws its owner ids from (NewWith).
func (l *Locker) Owners() *setup.Owners { return l.owners }

// Clock is this Locker's clock (Options.Clock, resolved).
func (l *Locker) Clock() lockstep.Clock { return l.cfg.Clock }

// Process is this Locker's process id (Options.ProcessID, resolved).
func (l *Locker) Process() string { return l.cfg.ID }

// Observer is this Locker's Observer (Options.Observer, resolved).
func (l *Locker) Observer() lockstep.Observer { return l.cfg.Observer }
