package securetest

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/schema"
)

// The guide shows operators the same grants the integration tests give the
// roles: every statement, for keyspace locks and the guide's role names, is
// in docs/security.md.
func TestDocsListEveryGrant(t *testing.T) {
	doc, err := os.ReadFile("../../docs/security.md")
	require.NoError(t, err)
	text := string(doc)
	want := []string{AdminGrantCQL("lockstep_admin")}
	for _, g := range AppGrants(schema.DefaultTables()) {
		want = append(want, g.CQL("locks", "lockstep_app"))
	}
	for _, g := range OperatorGrants(schema.DefaultTables()) {
		want = append(want, g.CQL("locks", "lockstep_operator"))
	}
	for _, stmt := range want {
		assert.True(t, strings.Contains(text, stmt+";"), "docs/security.md lacks %q", stmt)
	}
	// And nothing beyond them: the guide grants exactly the lists above.
	assert.Equal(t, len(want), strings.Count(text, "\nGRANT "), "GRANT lines in docs/security.md")
}
