package shadow

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/setup"
)

// Ready reads one row of each legacy table, writing nothing: call it once at
// startup, so a missing keyspace or table shows then. The error wraps
// setup.ErrNotReady and the store's error.
func (l *Locker) Ready(ctx context.Context) error {
	return setup.ProbeTables(ctx, l.store, "shadowlock: ", l.cfg.main, l.cfg.shadow)
}
