package schema

import (
	"context"
	"errors"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep"
)

// genericShape is the cell shape every table must have, because
// lockstep.Store is generic over tables.
const genericShape = "row_key text,\n  column_name text,\n  value blob,\n  PRIMARY KEY ((row_key), column_name)\n) WITH CLUSTERING ORDER BY (column_name ASC)"

// fencedShape is the shape of the fenced resource table, which
// cassandra.FenceStore reads and writes by lightweight transactions.
const fencedShape = "row_key text,\n  fence_token bigint,\n  value blob,\n  PRIMARY KEY (row_key)\n) WITH comment"

func TestStatements_RenderEveryTableInKeyspace(t *testing.T) {
	stmts, err := Statements("locks")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"legacy_main", "legacy_shadow", "queue_lock", "global_time", "fleet_census", "fleet_phase", "fenced_resource", "lock_waits"}
	if len(stmts) != len(want) {
		t.Fatalf("got %d statements, want %d", len(stmts), len(want))
	}
	for i, name := range want {
		s := stmts[i]
		if !strings.HasPrefix(s, "CREATE TABLE IF NOT EXISTS locks."+name+" (") {
			t.Errorf("statement %d starts %q, want CREATE TABLE IF NOT EXISTS locks.%s", i, firstLine(s), name)
		}
		shape := genericShape
		if name == "fenced_resource" {
			shape = fencedShape
		}
		if !strings.Contains(s, shape) {
			t.Errorf("%s: not the shape its Store speaks:\n%s", name, s)
		}
		for _, opt := range []string{"AND default_time_to_live = 0", "AND gc_grace_seconds = ", "LeveledCompactionStrategy", "'rows_per_partition': 'NONE'"} {
			if !strings.Contains(s, opt) {
				t.Errorf("%s: missing %q", name, opt)
			}
		}
		if strings.Contains(s, "{{") || strings.Contains(s, "--") || strings.HasSuffix(s, ";") {
			t.Errorf("%s: template residue, comment or semicolon left:\n%s", name, s)
		}
	}
}

func TestStatements_GCGraceExceedsLockTTLAndHintWindow(t *testing.T) {
	stmts, err := Statements("locks")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`gc_grace_seconds = (\d+)`)
	for _, s := range stmts {
		m := re.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no gc_grace_seconds in %s", firstLine(s))
		}
		// 3 h: the default max_hint_window, and far above any lock TTL.
		if n, _ := strconv.Atoi(m[1]); n < 10800 {
			t.Errorf("%s: gc_grace_seconds %s below 10800", firstLine(s), m[1])
		}
	}
}

func TestStatements_EveryTableCommentNamesItsModes(t *testing.T) {
	modes := map[string][]string{
		"legacy_main":     {"legacy", "combined"},
		"legacy_shadow":   {"legacy", "combined"},
		"queue_lock":      {"combined", "new"},
		"global_time":     {"global clock"},
		"fleet_census":    {"legacy", "combined", "new"},
		"fleet_phase":     {"legacy", "combined", "new"},
		"fenced_resource": {"legacy", "combined", "new"},
		"lock_waits":      {"legacy", "combined", "new"},
	}
	stmts, err := Statements("locks")
	if err != nil {
		t.Fatal(err)
	}
	commentRE := regexp.MustCompile(`comment = '([^']*)'`)
	for i, name := range []string{"legacy_main", "legacy_shadow", "queue_lock", "global_time", "fleet_census", "fleet_phase", "fenced_resource", "lock_waits"} {
		m := commentRE.FindStringSubmatch(stmts[i])
		if m == nil || !strings.Contains(m[1], "modes:") {
			t.Errorf("%s: no comment option naming modes", name)
			continue
		}
		raw, err := fs.ReadFile(files, "cql/"+name+".cql")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), "-- Modes:") {
			t.Errorf("%s.cql: header comment has no \"-- Modes:\" line", name)
		}
		for _, mode := range modes[name] {
			if !strings.Contains(m[1], mode) {
				t.Errorf("%s: comment %q does not name mode %q", name, m[1], mode)
			}
		}
	}
}

func TestStatements_TableOverridesAreUsed(t *testing.T) {
	stmts, err := Statements("locks", WithTables(Tables{QueueLock: "q2", FleetPhase: "phase2"}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stmts[2], "CREATE TABLE IF NOT EXISTS locks.q2 (") {
		t.Errorf("queue table not overridden: %s", firstLine(stmts[2]))
	}
	if !strings.HasPrefix(stmts[5], "CREATE TABLE IF NOT EXISTS locks.phase2 (") {
		t.Errorf("phase table not overridden: %s", firstLine(stmts[5]))
	}
	if !strings.HasPrefix(stmts[0], "CREATE TABLE IF NOT EXISTS locks.legacy_main (") {
		t.Errorf("default lost: %s", firstLine(stmts[0]))
	}
}

func TestStatements_RefuseUnsafeNames(t *testing.T) {
	cases := map[string][]Option{
		"":                        nil,
		"Locks":                   nil,
		"locks; DROP KEYSPACE x":  nil,
		"locks.x":                 nil,
		`"locks"`:                 nil,
		"1locks":                  nil,
		strings.Repeat("a", 49):   nil,
		"locks ":                  nil,
		"ok_keyspace_bad_table":   {WithTables(Tables{LegacyMain: "main; DROP TABLE x"})},
		"ok_keyspace_upper_table": {WithTables(Tables{QueueLock: "Queue"})},
		"ok_keyspace_dup_tables":  {WithTables(Tables{LegacyMain: "t", LegacyShadow: "t"})},
		"ok_keyspace_dup_default": {WithTables(Tables{QueueLock: "legacy_main"})},
		"ok_keyspace_bad_fenced":  {WithTables(Tables{FencedResource: "Fenced"})},
		"ok_keyspace_dup_fenced":  {WithTables(Tables{FencedResource: "queue_lock"})},
	}
	for ks, opts := range cases {
		keyspace := ks
		if strings.HasPrefix(ks, "ok_keyspace_") {
			keyspace = "locks"
		}
		stmts, err := Statements(keyspace, opts...)
		if !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("%q: got %v, %d statements; want ErrInvalidConfig", ks, err, len(stmts))
		}
	}
}

func TestStatements_CreateKeyspaceRendersReplicationSafely(t *testing.T) {
	cases := []struct {
		repl map[string]string
		want string
	}{
		{map[string]string{"class": "SimpleStrategy", "replication_factor": "3"},
			"{'class': 'SimpleStrategy', 'replication_factor': '3'}"},
		{map[string]string{"class": "NetworkTopologyStrategy", "dc2": "3", "dc1": "5"},
			"{'class': 'NetworkTopologyStrategy', 'dc1': '5', 'dc2': '3'}"},
		{map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "eu-west.1": "3"},
			"{'class': 'NetworkTopologyStrategy', 'eu-west.1': '3'}"},
	}
	for _, c := range cases {
		stmts, err := Statements("locks", WithCreateKeyspace(c.repl))
		if err != nil {
			t.Fatalf("%v: %v", c.repl, err)
		}
		if len(stmts) != 9 {
			t.Fatalf("got %d statements, want keyspace + 8 tables", len(stmts))
		}
		want := "CREATE KEYSPACE IF NOT EXISTS locks\n  WITH replication = " + c.want + "\n  AND durable_writes = true"
		if stmts[0] != want {
			t.Errorf("got\n%s\nwant\n%s", stmts[0], want)
		}
	}
}

func TestStatements_RefuseBadReplication(t *testing.T) {
	cases := []map[string]string{
		{},
		{"replication_factor": "3"},
		{"class": "LocalStrategy"},
		{"class": "SimpleStrategy"},
		{"class": "SimpleStrategy", "replication_factor": "0"},
		{"class": "SimpleStrategy", "replication_factor": "-1"},
		{"class": "SimpleStrategy", "replication_factor": "03"},
		{"class": "SimpleStrategy", "replication_factor": "3", "dc1": "3"},
		{"class": "SimpleStrategy", "replication_factor": "3'}; DROP KEYSPACE x; --"},
		{"class": "NetworkTopologyStrategy"},
		{"class": "NetworkTopologyStrategy", "dc1": "three"},
		{"class": "NetworkTopologyStrategy", "dc'1": "3"},
		{"class": "NetworkTopologyStrategy", "dc 1": "3"},
		{"class": "NetworkTopologyStrategy", "dc1": "100"},
		{"class": "NetworkTopologyStrategy'", "dc1": "3"},
	}
	for _, repl := range cases {
		_, err := Statements("locks", WithCreateKeyspace(repl))
		if !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("%v: got %v, want ErrInvalidConfig", repl, err)
		}
	}
}

func TestWithCreateKeyspace_CopiesTheMap(t *testing.T) {
	repl := map[string]string{"class": "SimpleStrategy", "replication_factor": "1"}
	opt := WithCreateKeyspace(repl)
	repl["replication_factor"] = "x"
	if _, err := Statements("locks", opt); err != nil {
		t.Fatalf("option saw a later change of the caller's map: %v", err)
	}
}

func TestApply_NilSessionIsInvalidConfig(t *testing.T) {
	err := Apply(context.Background(), nil, "locks")
	if !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Fatalf("got %v, want ErrInvalidConfig", err)
	}
}
