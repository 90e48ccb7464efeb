package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// goodCatalog holds every table as Apply creates it.
func goodCatalog(t Tables) catalog {
	cat := catalog{keyspace: true, tables: map[string]tableLayout{}}
	for _, tb := range t.list() {
		shape := cellShape
		if tb.file == "fenced_resource.cql" {
			shape = fenceShape
		}
		cat.tables[tb.name] = tableLayout{columns: append([]Column(nil), shape...), gcGrace: shippedGCGrace(tb)}
	}
	return cat
}

func plan(t *testing.T, opts ...Option) ([]table, string) {
	t.Helper()
	wanted, c, err := verifyPlan("locks", opts)
	require.NoError(t, err)
	return wanted, applyCommand("locks", c.tables)
}

func TestCheck_AcceptsWhatApplyCreates(t *testing.T) {
	wanted, fix := plan(t)
	require.Len(t, wanted, 8)
	assert.NoError(t, check("locks", wanted, goodCatalog(Tables{}), fix))
	// Extra regular columns are lockstep's no concern.
	cat := goodCatalog(Tables{})
	l := cat.tables["queue_lock"]
	l.columns = append(l.columns, Column{Name: "note", Kind: "regular", Type: "text", Order: "none"})
	cat.tables["queue_lock"] = l
	assert.NoError(t, check("locks", wanted, cat, fix))
}

func TestCheck_MissingKeyspaceNamesTheCommand(t *testing.T) {
	wanted, fix := plan(t)
	err := check("locks", wanted, catalog{}, fix)
	require.ErrorIs(t, err, ErrNotReady)
	assert.Equal(t, "schema: keyspace locks is not ready for lockstep (1 problem); the keyspace does not exist: "+
		"fix: lockctl schema apply --keyspace locks --replication class=NetworkTopologyStrategy,<dc>=3 "+
		"(creates the keyspace and every table; or CREATE KEYSPACE yourself, then lockctl schema apply --keyspace locks)", err.Error())
}

func TestCheck_MissingTablesNameTheCommandWithRenamedTables(t *testing.T) {
	tables := Tables{QueueLock: "my_queue"}
	wanted, fix := plan(t, WithTables(tables), WithUses(Uses{Queue: true, Migration: true}))
	require.Len(t, wanted, 3)
	cat := goodCatalog(tables)
	delete(cat.tables, "my_queue")
	delete(cat.tables, "fleet_phase")
	err := check("locks", wanted, cat, fix)
	require.ErrorIs(t, err, ErrNotReady)
	var nr *NotReadyError
	require.ErrorAs(t, err, &nr)
	assert.Equal(t, []Problem{
		{Table: "my_queue", What: "missing", Fix: "lockctl schema apply --keyspace locks --table queue_lock=my_queue"},
		{Table: "fleet_phase", What: "missing", Fix: "lockctl schema apply --keyspace locks --table queue_lock=my_queue"},
	}, nr.Problems)
	assert.Equal(t, "schema: keyspace locks is not ready for lockstep (2 problems); "+
		"table locks.my_queue: missing: fix: lockctl schema apply --keyspace locks --table queue_lock=my_queue; "+
		"table locks.fleet_phase: missing: fix: lockctl schema apply --keyspace locks --table queue_lock=my_queue", err.Error())
}

func TestCheck_WrongLayoutAndOptionsNameTheFix(t *testing.T) {
	wanted, fix := plan(t, WithUses(Uses{Legacy: true}))
	cat := goodCatalog(Tables{})
	cat.tables["legacy_main"] = tableLayout{gcGrace: 10800, columns: []Column{
		{Name: "row_key", Kind: "partition_key", Type: "text", Order: "none"},
		{Name: "column_name", Kind: "clustering", Type: "text", Order: "desc"},
		{Name: "value", Kind: "regular", Type: "text", Order: "none"},
		{Name: "bucket", Kind: "clustering", Type: "int", Order: "asc"},
	}}
	cat.tables["legacy_shadow"] = tableLayout{columns: cellShape, defaultTTL: 60, gcGrace: 0}
	err := check("locks", wanted, cat, fix)
	var nr *NotReadyError
	require.ErrorAs(t, err, &nr)
	require.Len(t, nr.Problems, 3)
	assert.Equal(t, "wrong layout: column column_name is text clustering column, order DESC, want text clustering column, order ASC, "+
		"column value is text regular, want blob regular, extra key column bucket (int clustering column, order ASC)", nr.Problems[0].What)
	assert.Contains(t, nr.Problems[0].Fix, "DROP TABLE locks.legacy_main and run lockctl schema apply --keyspace locks")
	assert.Equal(t, "ALTER TABLE locks.legacy_shadow WITH default_time_to_live = 0", nr.Problems[1].Fix)
	assert.Equal(t, "ALTER TABLE locks.legacy_shadow WITH gc_grace_seconds = 10800", nr.Problems[2].Fix)
}

func TestVerify_RefusesBadArguments(t *testing.T) {
	err := Verify(t.Context(), nil, "locks")
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "pass the session the Store uses")
	_, _, err = verifyPlan("bad-keyspace", nil)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
}

// check is checkGrace with the default legacy grace (minGCGrace).
func check(keyspace string, wanted []table, cat catalog, fixApply string) error {
	return checkGrace(keyspace, wanted, cat, fixApply, minGCGrace)
}
