package schema

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNotReady is wrapped by the error Verify returns when the keyspace or a
// table is missing or has a layout lockstep cannot use. The error is a
// *NotReadyError listing every problem with its fix.
var ErrNotReady = errors.New("schema: lockstep tables not ready")

// Problem is one thing Verify found wrong, and how to fix it.
type Problem struct {
	Table string // "" for the keyspace
	What  string // what is wrong
	Fix   string // the command or CQL that fixes it
}

// NotReadyError lists what Verify found wrong. It wraps ErrNotReady.
type NotReadyError struct {
	Keyspace string
	Problems []Problem
}

func (e *NotReadyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "schema: keyspace %s is not ready for lockstep (%d problem", e.Keyspace, len(e.Problems))
	if len(e.Problems) != 1 {
		b.WriteString("s")
	}
	b.WriteString(")")
	for _, p := range e.Problems {
		b.WriteString("; ")
		if p.Table != "" {
			fmt.Fprintf(&b, "table %s.%s: ", e.Keyspace, p.Table)
		}
		fmt.Fprintf(&b, "%s: fix: %s", p.What, p.Fix)
	}
	return b.String()
}

// Unwrap returns ErrNotReady.
func (e *NotReadyError) Unwrap() error { return ErrNotReady }

// Column is one column of a table as the catalog (system_schema.columns)
// describes it.
type Column struct {
	Name  string
	Kind  string // partition_key, clustering, regular or static
	Type  string // CQL type, e.g. text
	Order string // clustering order: asc, desc or none
}

// tableLayout is what the catalog says of one table.
type tableLayout struct {
	columns    []Column
	defaultTTL int
	gcGrace    int
}

// catalog is what Verify read: whether the keyspace exists, and the layout
// of each table found (absent: missing).
type catalog struct {
	keyspace bool
	tables   map[string]tableLayout
}

// minGCGrace is the smallest gc_grace_seconds Verify accepts: the shipped
// lock tables' value, Cassandra's default max_hint_window (cql/legacy_main.cql
// has the argument).
const minGCGrace = 10800

// cellShape is the generic cell table every lock table shares (doc.go).
var cellShape = []Column{
	{Name: "row_key", Kind: "partition_key", Type: "text", Order: "none"},
	{Name: "column_name", Kind: "clustering", Type: "text", Order: "asc"},
	{Name: "value", Kind: "regular", Type: "blob", Order: "none"},
}

// fenceShape is fenced_resource's own shape.
var fenceShape = []Column{
	{Name: "row_key", Kind: "partition_key", Type: "text", Order: "none"},
	{Name: "fence_token", Kind: "regular", Type: "bigint", Order: "none"},
	{Name: "value", Kind: "regular", Type: "blob", Order: "none"},
}

// checkGrace compares what the catalog holds with the tables wanted, and
// returns a *NotReadyError naming each problem and its fix, or nil. fixApply
// is the command that creates what is missing; legacyGrace is the smallest
// gc_grace_seconds of the legacy tables (minGCGrace, or WithLegacyTTL's:
// legacygrace.go).
func checkGrace(keyspace string, wanted []table, cat catalog, fixApply string, legacyGrace int) error {
	e := &NotReadyError{Keyspace: keyspace}
	if !cat.keyspace {
		e.Problems = append(e.Problems, Problem{What: "the keyspace does not exist",
			Fix: fixApply + " --replication class=NetworkTopologyStrategy,<dc>=3 (creates the keyspace and every table; " +
				"or CREATE KEYSPACE yourself, then " + fixApply + ")"})
		return e
	}
	for _, t := range wanted {
		l, ok := cat.tables[t.name]
		if !ok {
			e.Problems = append(e.Problems, Problem{Table: t.name, What: "missing", Fix: fixApply})
			continue
		}
		shape := cellShape
		if t.file == "fenced_resource.cql" {
			shape = fenceShape
		}
		if what := shapeMismatch(shape, l.columns); what != "" {
			e.Problems = append(e.Problems, Problem{Table: t.name, What: what,
				Fix: "lockstep cannot use a table of another layout: give lockstep tables of its own " +
					"(other names through schema.WithTables, the Store's and the Lockers' table options, lockctl --table), " +
					"or, once nothing uses this one, DROP TABLE " + keyspace + "." + t.name + " and run " + fixApply})
		}
		if l.defaultTTL != 0 {
			e.Problems = append(e.Problems, Problem{Table: t.name,
				What: fmt.Sprintf("default_time_to_live is %d, want 0 (every write carries its own TTL; a table default would expire cells the algorithms write without one, such as the phase and the floor)", l.defaultTTL),
				Fix:  fmt.Sprintf("ALTER TABLE %s.%s WITH default_time_to_live = 0", keyspace, t.name)})
		}
		least, fix := minGCGrace, shippedGCGrace(t)
		if t.file == "legacy_main.cql" || t.file == "legacy_shadow.cql" {
			least, fix = legacyGrace, legacyGrace
		}
		if l.gcGrace < least {
			e.Problems = append(e.Problems, Problem{Table: t.name,
				What: fmt.Sprintf("gc_grace_seconds is %d, below %d (a delete missed by a replica could come back before hints deliver it)", l.gcGrace, least),
				Fix:  fmt.Sprintf("ALTER TABLE %s.%s WITH gc_grace_seconds = %d", keyspace, t.name, fix)})
		}
	}
	if len(e.Problems) == 0 {
		return nil
	}
	return e
}

// shippedGCGrace is the gc_grace_seconds the table's embedded CQL sets.
func shippedGCGrace(t table) int {
	switch t.file {
	case "global_time.cql", "fleet_phase.cql", "fenced_resource.cql":
		return 864000
	}
	return minGCGrace
}

// shapeMismatch says how the columns differ from want in the primary key or
// the columns lockstep reads, or returns "" if they do not. Extra regular
// columns are ignored: lockstep never reads them.
func shapeMismatch(want, got []Column) string {
	byName := make(map[string]Column, len(got))
	for _, c := range got {
		byName[c.Name] = c
	}
	var diffs []string
	for _, w := range want {
		g, ok := byName[w.Name]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("no column %s (want %s %s)", w.Name, w.Type, kindText(w)))
		case g.Type != w.Type || g.Kind != w.Kind || (w.Kind == "clustering" && g.Order != w.Order):
			diffs = append(diffs, fmt.Sprintf("column %s is %s %s, want %s %s", w.Name, g.Type, kindText(g), w.Type, kindText(w)))
		}
	}
	for _, g := range got {
		if (g.Kind == "partition_key" || g.Kind == "clustering") && !slices.ContainsFunc(want, func(w Column) bool { return w.Name == g.Name }) {
			diffs = append(diffs, fmt.Sprintf("extra key column %s (%s %s)", g.Name, g.Type, kindText(g)))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return "wrong layout: " + strings.Join(diffs, ", ")
}

func kindText(c Column) string {
	switch c.Kind {
	case "partition_key":
		return "partition key"
	case "clustering":
		return "clustering column, order " + strings.ToUpper(c.Order)
	}
	return c.Kind
}
