package queue

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/setup"
)

// Ready reads one row of the Locker's table, writing nothing: call it once
// at startup, so a missing keyspace or table shows then rather than at the
// first Lock. The error wraps setup.ErrNotReady and the store's error.
func (l *Locker) Ready(ctx context.Context) error {
	return setup.ProbeTables(ctx, l.store, "queuelock: ", l.cfg.table)
}
