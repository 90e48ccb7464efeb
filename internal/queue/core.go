package queue

import (
	"context"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/setup"
)

// What a composer of this module (package combined, package migration)
// calls on the queue lock's core, directly.

// Acquire takes a queue lock as one part of a larger acquisition
// (internal/held): no token, no Observer event, not tracked for Close. A
// Close of this Locker still ends the wait. With r.Claims set, the part
// notes each of its claims there (package combined runs the legacy half
// beside them).
func (l *Locker) Acquire(ctx context.Context, r held.Request) (held.Result, error) {
	var res held.Result
	err := l.parts.Do(ctx, "queuelock", r.ID, func(ctx context.Context) error {
		a := &attempt{l: l, id: l.row(r.ID), owner: l.owners.Next(), try: r.Try, mode: r.Mode,
			access: r.Access, loss: r.Loss, notes: r.Claims}
		p, err := a.run(ctx)
		if err != nil {
			return err
		}
		res = held.Result{Part: p, Owner: a.owner, Since: p.since, Attempts: a.claims, Requests: a.requests}
		return nil
	})
	return res, err
}

// Recording is the token service whose Drawn this Locker records as
// evidence (its Options.Fencing), nil when it records none: a composer
// drawing tokens for locks of which this Locker takes a part must draw
// them through it, or the records would not cover them (evidence.go).
func (l *Locker) Recording() *clock.Global {
	if l.cfg.evidence == EvidenceOff {
		return nil
	}
	return l.cfg.Fencing
}

// Owners is the issuer this Locker draws its owner ids from (NewWith).
func (l *Locker) Owners() *setup.Owners { return l.owners }

// Clock is this Locker's clock (Options.Clock, resolved).
func (l *Locker) Clock() lockstep.Clock { return l.cfg.Clock }

// Renew returns the period of this Locker's lease renewals.
func (l *Locker) Renew() time.Duration { return l.cfg.Lease.Renew }

// Process is this Locker's process id (Options.ProcessID, resolved).
func (l *Locker) Process() string { return l.cfg.ID }

// Observer is this Locker's Observer (Options.Observer, resolved).
func (l *Locker) Observer() lockstep.Observer { return l.cfg.Observer }
