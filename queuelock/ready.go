package queuelock

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/probe"
)

// ErrNotReady is wrapped by the error Ready returns when the Locker's table
// does not answer. It is the same value as migration.ErrNotReady.
var ErrNotReady = probe.ErrNotReady

// Ready is the Locker's startup check, to call once before serving: it
// reads one row of the Locker's table, writing nothing, so a missing
// keyspace or table shows at startup, with the fix, rather than at the
// first Lock. The error wraps ErrNotReady and the store's error. With
// Cassandra, schema.Verify also checks the table's layout.
func (l *Locker) Ready(ctx context.Context) error {
	return probe.Tables(ctx, l.store, "queuelock: ", l.cfg.table)
}
