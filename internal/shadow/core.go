package shadow

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/held"
)

// What a composer of this module (package combined, package migration)
// calls on the legacy lock's core, directly.

// Acquire takes a legacy lock as one part of a larger acquisition
// (internal/held): no token, no Observer event, not tracked for Close. A
// Close of this Locker still ends the wait. It takes q.ID exclusively,
// whatever q.Access asks.
func (l *Locker) Acquire(ctx context.Context, q held.Request) (held.Result, error) {
	return l.acquire(ctx, q, nil)
}

// acquire is Acquire, and with a gate Prepare's acquisition (overlap.go).
func (l *Locker) acquire(ctx context.Context, q held.Request, gate <-chan bool) (held.Result, error) {
	var res held.Result
	err := l.parts.Do(ctx, "shadowlock", q.ID, func(ctx context.Context) error {
		r := &round{l: l, id: q.ID, owner: l.owners.Next(), gate: gate}
		rounds, err := l.run(ctx, r, q.Try)
		if err != nil {
			return err
		}
		res = held.Result{Part: newPart(r, q.Mode, q.Loss), Owner: r.owner, Since: r.since, Attempts: rounds, Requests: r.requests}
		return nil
	})
	return res, err
}

// Process is this Locker's process id (Options.ProcessID, resolved).
func (l *Locker) Process() string { return l.cfg.ID }
