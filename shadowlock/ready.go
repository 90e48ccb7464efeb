package shadowlock

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/probe"
)

// ErrNotReady is wrapped by the error Ready returns when a legacy table does
// not answer. It is the same value as migration.ErrNotReady.
var ErrNotReady = probe.ErrNotReady

// Ready is the Locker's startup check, to call once before serving: it
// reads one row of the main and the shadow table, writing nothing, so a
// missing keyspace or table shows at startup, with the fix, rather than at
// the first Lock. The error wraps ErrNotReady and the store's error. With
// Cassandra, schema.Verify also checks the tables' layout.
func (l *Locker) Ready(ctx context.Context) error {
	return probe.Tables(ctx, l.store, "shadowlock: ", l.cfg.main, l.cfg.shadow)
}
