package lockstep_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The adapters (adapters/*, each a module of its own) must pull nothing into
// the library module: no module an adapter requires directly, and none of the
// ecosystems they bridge to, may appear in the library's module graph.
func TestAdaptersStayOutOfTheLibraryModule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	out, err := exec.Command("go", "list", "-m", "all").CombinedOutput()
	require.NoError(t, err, "go list -m all:\n%s", out)
	graph := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		graph[strings.Fields(line)[0]] = true
	}
	for m := range graph {
		for _, banned := range []string{"github.com/prometheus/", "go.opentelemetry.io/", "github.com/open-feature/"} {
			assert.False(t, strings.HasPrefix(m, banned),
				"the library module's graph holds %s: an adapter's dependency leaked into go.mod", m)
		}
	}
	mods, err := filepath.Glob("adapters/*/go.mod")
	require.NoError(t, err)
	require.NotEmpty(t, mods, "no adapter modules found: the test must run from the module root")
	for _, gomod := range mods {
		for _, dep := range directRequires(t, gomod) {
			assert.False(t, graph[dep] && !sharedWithLibrary[dep],
				"%s requires %s, which the library module's graph also holds", gomod, dep)
		}
	}
}

// sharedWithLibrary are modules an adapter may require that the library
// requires itself.
var sharedWithLibrary = map[string]bool{
	"github.com/lockstep-go/lockstep": true,
	"github.com/stretchr/testify":     true,
}

// directRequires returns the modules a go.mod requires without "// indirect".
func directRequires(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var deps []string
	inBlock := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "require (":
			inBlock = true
			continue
		case inBlock && line == ")":
			inBlock = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !inBlock:
			continue
		}
		if f := strings.Fields(line); len(f) >= 2 && !strings.Contains(line, "// indirect") {
			deps = append(deps, f[0])
		}
	}
	require.NoError(t, sc.Err(), path)
	require.NotEmpty(t, deps, "%s: no direct requirements parsed", path)
	return deps
}
