package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// lockctl is a module of its own so that the library's go.mod carries none
// of the command line's dependencies: the library's module graph holds no
// cobra, pflag or mousetrap, and no lockctl.
func TestModuleGraph_LibraryHoldsNoCLIModule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	cmd := exec.Command("go", "list", "-m", "all")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Equal(t, "github.com/lockstep-go/lockstep", lines[0])
	for _, l := range lines {
		for _, bad := range []string{"github.com/spf13/", "github.com/inconshreveable/mousetrap", "github.com/lockstep-go/lockstep/cmd/lockctl"} {
			require.False(t, strings.HasPrefix(l, bad), "the library's module graph holds %s", l)
		}
	}
	// And this module does use them: the check above is not vacuous.
	cmd = exec.Command("go", "list", "-m", "github.com/spf13/cobra")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}
