package schema

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
)

// Uses says which tables Verify checks, by what the service uses. The zero
// value checks nothing; AllUses (Verify's default) checks every table Apply
// creates.
type Uses struct {
	Legacy     bool // legacy_main and legacy_shadow: modes legacy and combined
	Queue      bool // queue_lock: modes combined and new
	Migration  bool // fleet_census and fleet_phase: migration.Locker and Controller
	GlobalTime bool // global_time: fencing tokens, the global clock
	Fence      bool // fenced_resource: package fence on Cassandra
	Deadlock   bool // lock_waits: Lockers with deadlock detection
}

// AllUses checks every table Apply creates.
func AllUses() Uses {
	return Uses{Legacy: true, Queue: true, Migration: true, GlobalTime: true, Fence: true, Deadlock: true}
}

// MigrationUses is what a migration.Locker needs: both algorithms' tables and
// the census and phase, and global_time if it draws fencing tokens.
func MigrationUses(fencing bool) Uses {
	return Uses{Legacy: true, Queue: true, Migration: true, GlobalTime: fencing}
}

// WithUses limits Verify to the tables u names. Statements and Apply ignore
// it: they always create every table.
func WithUses(u Uses) Option { return func(c *config) { c.uses = &u } }

func (u Uses) wants(t table) bool {
	switch t.file {
	case "legacy_main.cql", "legacy_shadow.cql":
		return u.Legacy
	case "queue_lock.cql":
		return u.Queue
	case "fleet_census.cql", "fleet_phase.cql":
		return u.Migration
	case "global_time.cql":
		return u.GlobalTime
	case "fenced_resource.cql":
		return u.Fence
	case "lock_waits.cql":
		return u.Deadlock
	}
	return false
}

// Verify is the readiness check to run at startup: it reads the cluster's
// schema catalog (system_schema) and checks that keyspace exists and that
// every table the service uses (WithUses; default all) exists with the
// layout lockstep reads and writes — the columns, their types and the
// clustering order of doc.go's shapes — and with default_time_to_live 0
// and a gc_grace_seconds of at least 3 h (the cql files say why; for the
// legacy tables, given WithLegacyTTL, at least LegacyGCGrace). It writes
// nothing. Table names follow WithTables, as for Apply.
//
// A problem gives a *NotReadyError (wrapping ErrNotReady) that lists every
// problem with its fix: the lockctl command that creates what is missing
// (lockctl schema apply --keyspace K, with the --table flags for renamed
// tables) or the CQL that repairs an option. Invalid names or options give
// an error wrapping lockstep.ErrInvalidConfig; a failed catalog read is
// returned as it is.
func Verify(ctx context.Context, session *gocql.Session, keyspace string, opts ...Option) error {
	if session == nil {
		return &lockstep.ConfigError{Field: "session", Reason: "nil *gocql.Session: pass the session the Store uses"}
	}
	wanted, c, err := verifyPlan(keyspace, opts)
	if err != nil {
		return err
	}
	cat, err := readCatalog(ctx, session, keyspace)
	if err != nil {
		return err
	}
	legacyGrace := minGCGrace
	if c.legacyGrace != 0 {
		legacyGrace = int(c.legacyGrace / time.Second)
	}
	return checkGrace(keyspace, wanted, cat, applyCommand(keyspace, c.tables), legacyGrace)
}

// verifyPlan validates the names and returns the tables to check.
func verifyPlan(keyspace string, opts []Option) ([]table, config, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if _, err := Statements(keyspace, WithTables(c.tables)); err != nil {
		return nil, c, err
	}
	if c.legacyErr != nil {
		return nil, c, c.legacyErr
	}
	u := AllUses()
	if c.uses != nil {
		u = *c.uses
	}
	var wanted []table
	for _, t := range c.tables.list() {
		if u.wants(t) {
			wanted = append(wanted, t)
		}
	}
	return wanted, c, nil
}

// applyCommand is the lockctl command that creates the tables as named.
func applyCommand(keyspace string, t Tables) string {
	parts := []string{"lockctl schema apply --keyspace " + keyspace}
	d := DefaultTables().list()
	for i, got := range t.list() {
		if got.name != d[i].name {
			parts = append(parts, fmt.Sprintf("--table %s=%s", d[i].name, got.name))
		}
	}
	return strings.Join(parts, " ")
}

// readCatalog reads the keyspace's tables and columns from system_schema.
func readCatalog(ctx context.Context, session *gocql.Session, keyspace string) (catalog, error) {
	cat := catalog{tables: map[string]tableLayout{}}
	var name string
	err := session.Query(`SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?`, keyspace).
		WithContext(ctx).Scan(&name)
	switch {
	case errors.Is(err, gocql.ErrNotFound):
		return cat, nil
	case err != nil:
		return cat, fmt.Errorf("schema: reading system_schema.keyspaces: %w", err)
	}
	cat.keyspace = true
	iter := session.Query(`SELECT table_name, default_time_to_live, gc_grace_seconds FROM system_schema.tables WHERE keyspace_name = ?`,
		keyspace).WithContext(ctx).Iter()
	var ttl, grace int
	for iter.Scan(&name, &ttl, &grace) {
		cat.tables[name] = tableLayout{defaultTTL: ttl, gcGrace: grace}
	}
	if err := iter.Close(); err != nil {
		return cat, fmt.Errorf("schema: reading system_schema.tables: %w", err)
	}
	iter = session.Query(`SELECT table_name, column_name, kind, type, clustering_order FROM system_schema.columns WHERE keyspace_name = ?`,
		keyspace).WithContext(ctx).Iter()
	var col Column
	for iter.Scan(&name, &col.Name, &col.Kind, &col.Type, &col.Order) {
		if l, ok := cat.tables[name]; ok {
			l.columns = append(l.columns, col)
			cat.tables[name] = l
		}
	}
	if err := iter.Close(); err != nil {
		return cat, fmt.Errorf("schema: reading system_schema.columns: %w", err)
	}
	return cat, nil
}
