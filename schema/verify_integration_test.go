//go:build integration

package schema_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/schema"
)

// Verify on a real node: a missing keyspace, missing tables, a table of
// another layout and a wrong option are each reported with their fix, and a
// keyspace Apply made passes.
func TestVerify_OnARealNode(t *testing.T) {
	session, _ := itSession(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	const ks = "lockstep_it_ready"
	exec := func(stmt string) {
		t.Helper()
		require.NoError(t, session.Query(stmt).WithContext(ctx).Exec(), stmt)
		require.NoError(t, session.AwaitSchemaAgreement(ctx))
	}
	exec("DROP KEYSPACE IF EXISTS " + ks)

	err := schema.Verify(ctx, session, ks)
	require.ErrorIs(t, err, schema.ErrNotReady)
	assert.Contains(t, err.Error(), "the keyspace does not exist: fix: lockctl schema apply --keyspace "+ks+" --replication")

	exec("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	err = schema.Verify(ctx, session, ks, schema.WithUses(schema.MigrationUses(false)))
	var nr *schema.NotReadyError
	require.ErrorAs(t, err, &nr)
	assert.Len(t, nr.Problems, 5, "legacy_main, legacy_shadow, queue_lock, fleet_census, fleet_phase: %v", err)
	assert.Contains(t, err.Error(), "table "+ks+".queue_lock: missing: fix: lockctl schema apply --keyspace "+ks)

	require.NoError(t, schema.Apply(ctx, session, ks))
	require.NoError(t, schema.Verify(ctx, session, ks), "every table as Apply made it")

	exec("DROP TABLE " + ks + ".queue_lock")
	exec("CREATE TABLE " + ks + ".queue_lock (row_key text, column_name text, value text, PRIMARY KEY ((row_key), column_name)) " +
		"WITH CLUSTERING ORDER BY (column_name DESC) AND gc_grace_seconds = 10800")
	exec("ALTER TABLE " + ks + ".fleet_phase WITH default_time_to_live = 3600")
	err = schema.Verify(ctx, session, ks)
	require.ErrorAs(t, err, &nr)
	require.Len(t, nr.Problems, 2, "%v", err)
	assert.Equal(t, "queue_lock", nr.Problems[0].Table)
	assert.Equal(t, "wrong layout: column column_name is text clustering column, order DESC, want text clustering column, order ASC, "+
		"column value is text regular, want blob regular", nr.Problems[0].What)
	assert.Equal(t, "ALTER TABLE "+ks+".fleet_phase WITH default_time_to_live = 0", nr.Problems[1].Fix)
	t.Log(err)

	// Only what the service uses counts: a legacy-only service is ready.
	require.NoError(t, schema.Verify(ctx, session, ks, schema.WithUses(schema.Uses{Legacy: true})))
	exec("DROP KEYSPACE " + ks)
}
