//go:build integration

package schema_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/schema"
)

// migration.Locker.Ready on a real node: a missing table shows at startup
// with the fix, and once the tables exist the Locker is ready and locks.
func TestLockerReady_OnARealNode(t *testing.T) {
	session, _ := itSession(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	const ks = "lockstep_it_ready_locker"
	exec := func(stmt string) {
		t.Helper()
		require.NoError(t, session.Query(stmt).WithContext(ctx).Exec(), stmt)
		require.NoError(t, session.AwaitSchemaAgreement(ctx))
	}
	exec("DROP KEYSPACE IF EXISTS " + ks)
	exec("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	store, err := cassandra.New(session, ks)
	require.NoError(t, err)
	l, err := migration.New(store, migration.Static(lockstep.ModeLegacy), nil)
	require.NoError(t, err)
	defer l.Close(context.Background())

	err = l.Ready(ctx)
	require.ErrorIs(t, err, migration.ErrNotReady)
	assert.Contains(t, err.Error(), "migration: not ready: table legacy_main does not answer a read: ")
	assert.Contains(t, err.Error(), "create the lockstep tables with lockctl schema apply --keyspace <keyspace>")
	t.Log(err)

	require.NoError(t, schema.Apply(ctx, session, ks))
	require.NoError(t, schema.Verify(ctx, session, ks, schema.WithUses(schema.MigrationUses(false))))
	require.NoError(t, l.Ready(ctx))
	h, err := l.Lock(ctx, "ready")
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))
	require.NoError(t, l.Close(ctx))
	exec("DROP KEYSPACE " + ks)
}
