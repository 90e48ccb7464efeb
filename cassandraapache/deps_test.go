package cassandraapache_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// github.com/gocql/gocql is the other driver: a service on this store must
// not compile, link or download it. This module's go.mod does not require
// it, no package of this module (tests and integration tests included)
// imports it, and nothing of it is downloaded (go.sum has no line for it).
// It still shows in `go list -m all`, because the lockstep module requires
// it for package cassandra; with module graph pruning that is a name in the
// graph, not a build input: `go mod why -m` says no package needs it.
const otherDriver = "github.com/gocql/gocql"

func goCmd(t *testing.T, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	out, err := exec.Command("go", args...).CombinedOutput()
	require.NoError(t, err, "go %s\n%s", strings.Join(args, " "), out)
	return string(out)
}

func TestOtherDriver_NoPackageDependsOnIt(t *testing.T) {
	for _, tags := range []string{"", "integration"} {
		out := goCmd(t, "list", "-deps", "-test", "-tags", tags, "./...")
		for _, pkg := range strings.Fields(out) {
			require.False(t, pkg == otherDriver || strings.HasPrefix(pkg, otherDriver+"/"),
				"with tags %q a package of this module depends on %s", tags, pkg)
		}
		require.Contains(t, out, "github.com/apache/cassandra-gocql-driver/v2\n", "the v2 driver is this module's driver")
	}
}

func TestOtherDriver_NotRequiredNeededOrDownloaded(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	require.NotContains(t, string(mod), otherDriver+" ", "go.mod requires the other driver")
	sum, err := os.ReadFile("go.sum")
	require.NoError(t, err)
	require.NotContains(t, string(sum), otherDriver+" ", "go.sum verifies a download of the other driver")
	require.Contains(t, goCmd(t, "mod", "why", "-m", otherDriver), "main module does not need module "+otherDriver)
}
