package schema

import (
	"cmp"
	"context"
	"embed"
	"fmt"
	"maps"
	"strings"
	"text/template"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
)

//go:embed cql/*.cql
var files embed.FS

// templates holds every embedded statement, parsed once. Templates only ever
// receive names that passed lockstep.ValidateName and a replication literal
// rendered by replicationLiteral.
var templates = template.Must(template.New("").Option("missingkey=error").ParseFS(files, "cql/*.cql"))

// Tables names the tables lockstep uses. An empty field means the default
// name (see DefaultTables). Every name must pass lockstep.ValidateName and the
// names must be distinct.
type Tables struct {
	// LegacyMain is the legacy shadow-table lock's main row table (modes
	// legacy and combined). Default "legacy_main".
	LegacyMain string
	// LegacyShadow is the legacy shadow-table lock's shadow row table (modes
	// legacy and combined). Default "legacy_shadow".
	LegacyShadow string
	// QueueLock holds the queue algorithm's queue, owner and floor cells
	// (modes combined and new). Default "queue_lock".
	QueueLock string
	// GlobalTime holds the global time service's cell (any mode using the
	// global clock). Default "global_time".
	GlobalTime string
	// FleetCensus holds the migration census heartbeats (all modes). Default
	// "fleet_census".
	FleetCensus string
	// FleetPhase holds the fleet-wide migration phase (all modes). Default
	// "fleet_phase".
	FleetPhase string
	// FencedResource holds the values package fence guards with fencing
	// tokens (applications, any mode); it has its own shape (row_key,
	// fence_token, value), not the cell shape. Default "fenced_resource".
	FencedResource string
	// LockWaits holds the wait records of deadlock detection (any mode,
	// Lockers with Options.Deadlock). Default "lock_waits".
	LockWaits string
}

// DefaultTables returns the default table names.
func DefaultTables() Tables {
	return Tables{
		LegacyMain:     "legacy_main",
		LegacyShadow:   "legacy_shadow",
		QueueLock:      "queue_lock",
		GlobalTime:     "global_time",
		FleetCensus:    "fleet_census",
		FleetPhase:     "fleet_phase",
		FencedResource: "fenced_resource",
		LockWaits:      "lock_waits",
	}
}

// table pairs a table's embedded template (named after its default table
// name) with the name it is created under.
type table struct {
	file string // template name, e.g. "queue_lock.cql"
	name string // the table name to create
}

// list returns the tables in creation order, with defaults filled in.
func (t Tables) list() []table {
	d := DefaultTables()
	pick := func(name, def string) table {
		return table{file: def + ".cql", name: cmp.Or(name, def)}
	}
	return []table{
		pick(t.LegacyMain, d.LegacyMain),
		pick(t.LegacyShadow, d.LegacyShadow),
		pick(t.QueueLock, d.QueueLock),
		pick(t.GlobalTime, d.GlobalTime),
		pick(t.FleetCensus, d.FleetCensus),
		pick(t.FleetPhase, d.FleetPhase),
		pick(t.FencedResource, d.FencedResource),
		pick(t.LockWaits, d.LockWaits),
	}
}

// Option configures Statements and Apply.
type Option func(*config)

type config struct {
	replication map[string]string // nil: do not create the keyspace
	tables      Tables
	legacyGrace time.Duration // WithLegacyTTL's; 0: DefaultLegacyGCGrace
	legacyErr   error         // WithLegacyTTL's invalid values
	uses        *Uses         // Verify only; nil: AllUses
}

// WithCreateKeyspace makes Statements and Apply create the keyspace first
// (IF NOT EXISTS) with the given replication map, for example
//
//	{"class": "NetworkTopologyStrategy", "dc1": "3", "dc2": "3"}
//	{"class": "SimpleStrategy", "replication_factor": "3"}
//
// The class must be SimpleStrategy (with exactly a replication_factor) or
// NetworkTopologyStrategy (data-centre names, or replication_factor, mapped to
// factors); factors must be positive integers and data-centre names may hold
// only letters, digits, '_', '-' and '.'. By default the keyspace is not
// created and must already exist. An existing keyspace is never altered.
func WithCreateKeyspace(replication map[string]string) Option {
	m := make(map[string]string, len(replication))
	for k, v := range replication {
		m[k] = v
	}
	return func(c *config) { c.replication = m }
}

// WithTables overrides table names; empty fields keep their defaults. The
// cassandra Store and the algorithms must be given the same names.
func WithTables(t Tables) Option {
	return func(c *config) { c.tables = t }
}

// Statements returns the CQL statements Apply executes, in order, for
// keyspace: the CREATE KEYSPACE statement if WithCreateKeyspace was given,
// then one CREATE TABLE IF NOT EXISTS per table. Statements carry no trailing
// semicolon and no comments (the table's comment option names its modes). An
// unsafe keyspace or table name, duplicate table names or an invalid
// replication map give an error wrapping lockstep.ErrInvalidConfig.
func Statements(keyspace string, opts ...Option) ([]string, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if err := lockstep.ValidateName("keyspace", keyspace); err != nil {
		return nil, err
	}
	if c.legacyErr != nil {
		return nil, c.legacyErr
	}
	tables := c.tables.list()
	seen := make(map[string]string, len(tables))
	for _, t := range tables {
		if err := lockstep.ValidateName("table", t.name); err != nil {
			return nil, err
		}
		if other, dup := seen[t.name]; dup {
			return nil, &lockstep.ConfigError{Field: "table", Reason: fmt.Sprintf("%q is used for both %s and %s: give each table its own name", t.name, other, strings.TrimSuffix(t.file, ".cql"))}
		}
		seen[t.name] = strings.TrimSuffix(t.file, ".cql")
	}

	var out []string
	if c.replication != nil {
		lit, err := replicationLiteral(c.replication)
		if err != nil {
			return nil, err
		}
		s, err := render("keyspace.cql", map[string]string{"Keyspace": keyspace, "Replication": lit})
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	for _, t := range tables {
		data := map[string]string{"Keyspace": keyspace, "Table": t.name}
		if t.file == "legacy_main.cql" || t.file == "legacy_shadow.cql" {
			maps.Copy(data, c.legacyTableOptions())
		}
		s, err := render(t.file, data)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// render executes one embedded template and strips its comment lines and
// trailing semicolon, leaving one executable statement.
func render(file string, data map[string]string) (string, error) {
	var b strings.Builder
	if err := templates.ExecuteTemplate(&b, file, data); err != nil {
		return "", fmt.Errorf("schema: render %s: %w", file, err)
	}
	var lines []string
	for _, line := range strings.Split(b.String(), "\n") {
		if trimmed := strings.TrimSpace(line); trimmed == "" || strings.HasPrefix(trimmed, "--") {
			continue
		}
		lines = append(lines, line)
	}
	return strings.TrimSuffix(strings.Join(lines, "\n"), ";"), nil
}

// Apply creates the keyspace (with WithCreateKeyspace) and every table in
// keyspace, waiting for schema agreement after each statement so the next one
// (and the caller's first query) finds what the previous one created. It is
// idempotent: every statement is IF NOT EXISTS, and existing tables are left
// as they are, even if their options differ. ctx bounds the whole call; on
// error some statements may have been applied, and calling Apply again
// finishes the job. A nil session or an invalid option gives an error
// wrapping lockstep.ErrInvalidConfig and executes nothing.
func Apply(ctx context.Context, session *gocql.Session, keyspace string, opts ...Option) error {
	if session == nil {
		return &lockstep.ConfigError{Field: "session", Reason: "nil *gocql.Session: pass a connected session (gocql.NewCluster(...).CreateSession())"}
	}
	stmts, err := Statements(keyspace, opts...)
	if err != nil {
		return err
	}
	for _, stmt := range stmts {
		if err := session.Query(stmt).WithContext(ctx).Idempotent(true).Exec(); err != nil {
			return fmt.Errorf("schema: %s: %w", firstLine(stmt), err)
		}
		if err := session.AwaitSchemaAgreement(ctx); err != nil {
			return fmt.Errorf("schema: awaiting schema agreement after %s: %w", firstLine(stmt), err)
		}
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(strings.TrimSuffix(line, " ("))
}
