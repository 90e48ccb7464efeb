package schema

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra/cqlstore"
)

// The legacy wire format is pinned in three places that must agree: the
// requests shadowlock sends (internal/shadow/testdata/legacy-format.golden,
// written by TestGolden_LegacyFormat), the CQL statements package cassandra
// turns them into (cassandra/cqlstore), and the tables this package creates
// (cql/legacy_main.cql, cql/legacy_shadow.cql). docs/legacy-format.md
// quotes all three. These tests read the golden file and check that every
// table it names is a legacy table of the schema, that every CQL column
// its requests name is a column of that table with the role and type the
// statements need, that each operation names exactly the columns and
// clauses of its statement, and that the document quotes the statements.

const legacyGolden = "../internal/shadow/testdata/legacy-format.golden"

// legacyRequest is one request line of the golden file.
type legacyRequest struct {
	op, table string
	keys      []string // field names before "->", in order: CQL columns and clauses
}

// fieldKey matches a field of a request line: a name, then =, >= or <.
var fieldKey = regexp.MustCompile(`^([a-z_]+)(=|>=|<)`)

func readLegacyGolden(t *testing.T) []legacyRequest {
	t.Helper()
	b, err := os.ReadFile(legacyGolden)
	if err != nil {
		t.Fatal(err)
	}
	var reqs []legacyRequest
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "=") {
			continue
		}
		req, _, _ := strings.Cut(line, " ->")
		f := strings.Fields(req)
		if len(f) < 2 {
			t.Fatalf("%s: unparsable line %q", legacyGolden, line)
		}
		r := legacyRequest{op: f[0], table: f[1]}
		for _, field := range f[2:] {
			m := fieldKey.FindStringSubmatch(field)
			if m == nil {
				t.Fatalf("%s: unparsable field %q in %q", legacyGolden, field, line)
			}
			r.keys = append(r.keys, m[1]+m[2])
		}
		reqs = append(reqs, r)
	}
	if len(reqs) == 0 {
		t.Fatalf("%s: no requests", legacyGolden)
	}
	return reqs
}

// cqlColumns parses a rendered CREATE TABLE: column name → type, and the
// partition key and clustering columns.
func cqlColumns(t *testing.T, stmt string) (types map[string]string, partition, clustering []string) {
	t.Helper()
	types = map[string]string{}
	def := regexp.MustCompile(`^\s+([a-z_]+) ([a-z]+),$`)
	pk := regexp.MustCompile(`PRIMARY KEY \(\(([a-z_, ]+)\)(?:, ([a-z_, ]+))?\)`)
	for _, line := range strings.Split(stmt, "\n") {
		if m := def.FindStringSubmatch(line); m != nil {
			types[m[1]] = m[2]
		}
	}
	m := pk.FindStringSubmatch(stmt)
	if m == nil {
		t.Fatalf("no PRIMARY KEY ((…), …) in\n%s", stmt)
	}
	split := func(s string) []string {
		var out []string
		for _, f := range strings.Split(s, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
		return out
	}
	return types, split(m[1]), split(m[2])
}

func TestLegacyGolden_NamesTheSchemasTablesAndColumns(t *testing.T) {
	reqs := readLegacyGolden(t)
	stmts, err := Statements("locks")
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultTables()
	legacy := []string{d.LegacyMain, d.LegacyShadow}
	seen := map[string]bool{}
	for _, r := range reqs {
		if !slices.Contains(legacy, r.table) {
			t.Fatalf("%s names table %q, not one of the schema's legacy tables %q", legacyGolden, r.table, legacy)
		}
		seen[r.table] = true
	}
	for _, table := range legacy {
		if !seen[table] {
			t.Errorf("%s never touches %s", legacyGolden, table)
		}
		i := slices.IndexFunc(stmts, func(s string) bool { return strings.HasPrefix(s, "CREATE TABLE IF NOT EXISTS locks."+table+" (") })
		if i < 0 {
			t.Fatalf("the schema creates no table %s", table)
		}
		types, partition, clustering := cqlColumns(t, stmts[i])
		// The roles the statements rely on: one text partition key, one
		// text clustering column (bytewise order), one blob value.
		if !slices.Equal(partition, []string{"row_key"}) || !slices.Equal(clustering, []string{"column_name"}) ||
			types["row_key"] != "text" || types["column_name"] != "text" || types["value"] != "blob" {
			t.Errorf("%s: columns %v, partition key %v, clustering %v; want row_key text, column_name text, value blob, PRIMARY KEY ((row_key), column_name)",
				table, types, partition, clustering)
		}
		for _, r := range reqs {
			if r.table != table {
				continue
			}
			for _, k := range r.keys {
				name := strings.TrimRight(k, "=<>")
				if clause[name] {
					continue
				}
				if _, ok := types[name]; !ok {
					t.Errorf("%s: a %s names column %s, which %s does not have (%v)", legacyGolden, r.op, name, table, types)
				}
			}
		}
	}
}

// clause names the golden fields that are statement clauses, not columns.
var clause = map[string]bool{"ttl": true, "timestamp": true, "limit": true}

func TestLegacyGolden_MatchesTheStatementsSentAndTheDoc(t *testing.T) {
	reqs := readLegacyGolden(t)
	store, err := cqlstore.NewStore(nil, cqlstore.Errors{}, "locks", lockstep.Scope{}, cqlstore.Quorum, cqlstore.Quorum)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "legacy-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	// What each statement binds, in the golden file's field names.
	bound := regexp.MustCompile(`([a-z_]+) (=|>=|<) \?`)
	fields := func(stmt string) []string {
		var out []string
		for _, m := range bound.FindAllStringSubmatch(stmt, -1) {
			out = append(out, m[1]+m[2])
		}
		if strings.Contains(stmt, "USING TIMESTAMP ?") {
			out = append(out, "timestamp=")
		}
		if strings.Contains(stmt, "TTL ? ") {
			out = append(out, "ttl=")
		}
		slices.Sort(out)
		return out
	}
	for _, table := range []string{DefaultTables().LegacyMain, DefaultTables().LegacyShadow} {
		st, err := store.StatementsFor(table)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{"put": fields(st.Put), "delete": fields(st.Delete), "read": fields(st.Read[0])}
		for _, r := range reqs {
			if r.table != table {
				continue
			}
			w, ok := want[r.op]
			if !ok {
				t.Fatalf("%s: unknown operation %q", legacyGolden, r.op)
			}
			got := slices.Sorted(slices.Values(slices.DeleteFunc(slices.Clone(r.keys), func(k string) bool { return k == "batch=" })))
			if !slices.Equal(got, w) {
				t.Errorf("%s: a %s on %s has fields %v; its statement binds %v", legacyGolden, r.op, table, got, w)
			}
		}
		if table != DefaultTables().LegacyMain {
			continue
		}
		for _, s := range []string{st.Put, st.Delete, st.Read[0]} {
			if !strings.Contains(string(doc), s) {
				t.Errorf("docs/legacy-format.md does not quote the statement sent:\n%s", s)
			}
		}
	}
}
