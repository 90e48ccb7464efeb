package lockstep

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Version is a semantic version, and CHANGELOG.md's newest entry is its
// release: the two cannot drift apart.
func TestVersion_MatchesTheChangelog(t *testing.T) {
	require.Regexp(t, `^\d+\.\d+\.\d+(-dev)?$`, Version)
	b, err := os.ReadFile("CHANGELOG.md")
	require.NoError(t, err)
	first := regexp.MustCompile(`(?m)^## (\d+\.\d+\.\d+)`).FindStringSubmatch(string(b))
	require.NotNil(t, first, "CHANGELOG.md has no release heading (## X.Y.Z)")
	require.Equal(t, strings.TrimSuffix(Version, "-dev"), first[1],
		"CHANGELOG.md's newest entry and lockstep.Version differ: bump one to match the other")
	if strings.HasSuffix(Version, "-dev") {
		require.Regexp(t, `(?m)^## `+regexp.QuoteMeta(first[1])+` — unreleased`, string(b), "a -dev Version's release is unreleased")
	}
}
