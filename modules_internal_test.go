package lockstep_test

import (
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each module of the repository is versioned and fetched on its own, so an
// internal package is its own module's business: a nested module that
// imported one of the library's internal packages would build against this
// checkout and break against a release whose internals moved. What a nested
// module needs of the library is public API (cassandra/cqlstore for the
// store on the other driver, testingknobs for the robustness suite's planted
// defects, locktest/clusterlock for integration tests). The check reads the
// imports of every package of every module, its tests' included, with and
// without the integration tag.
func TestModules_NoInternalImportAcrossModules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available: this test runs `go list` in every module (CI has it)")
	}
	mods := repoModules(t, ".")
	require.Greater(t, len(mods), 1, "no nested modules found: the test must run from the repository's root")
	var paths []string
	for _, m := range mods {
		paths = append(paths, m.path)
	}
	// owner is the module a package belongs to: the longest module path that
	// is a prefix of it.
	owner := func(pkg string) string {
		best := ""
		for _, p := range paths {
			if (pkg == p || strings.HasPrefix(pkg, p+"/")) && len(p) > len(best) {
				best = p
			}
		}
		return best
	}
	var bad []string
	for dir, m := range mods {
		for _, tags := range []string{"", "integration"} {
			cmd := exec.Command("go", "list", "-tags", tags, "-f",
				`{{.ImportPath}}: {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "./...")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "go list in %s:\n%s", dir, out)
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				pkg, imports, _ := strings.Cut(line, ": ")
				for _, d := range strings.Fields(imports) {
					if !strings.Contains(d+"/", "/internal/") {
						continue
					}
					if o := owner(d); o != "" && o != m.path {
						bad = append(bad, filepath.Join(dir, "go.mod")+": "+pkg+" imports "+d+" of module "+o)
					}
				}
			}
		}
	}
	sort.Strings(bad)
	bad = compactStrings(bad)
	require.Empty(t, bad, "a module imports another module's internal package: make what it needs public API of that module, or move the code into the module that uses it")
}

func compactStrings(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
