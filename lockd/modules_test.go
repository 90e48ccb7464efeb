package lockd_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// lockd is a module of its own so that the library's go.mod carries none of
// the service's dependencies: the library's module graph holds no Connect,
// no protobuf runtime and no lockd.
func TestModuleGraph_LibraryHoldsNoServiceModule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	cmd := exec.Command("go", "list", "-m", "all")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Equal(t, "github.com/lockstep-go/lockstep", lines[0])
	for _, l := range lines {
		for _, bad := range []string{"connectrpc.com/", "google.golang.org/protobuf", "github.com/lockstep-go/lockstep/lockd"} {
			require.False(t, strings.HasPrefix(l, bad), "the library's module graph holds %s", l)
		}
	}
	// And this module does use them: the check above is not vacuous.
	out, err = exec.Command("go", "list", "-m", "connectrpc.com/connect", "google.golang.org/protobuf").CombinedOutput()
	require.NoError(t, err, "%s", out)
}
