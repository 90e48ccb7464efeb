package lockstep_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The algorithms must run unchanged on the simulator and on Cassandra, so no
// package but cassandra/, schema/ (whose Apply takes the driver's session)
// cmd/, scripts/ and examples/ may depend on the driver, and the root package must import nothing
// of this module. cassandra/cqlstore, the half both stores share, imports no
// driver either: the store on the other driver (a module of its own) builds on it.
func TestDependencyDirection(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}: {{join .Deps " "}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "github.com/lockstep-go/lockstep"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, ": ")
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/")
		driverOK := strings.HasPrefix(rel, "cassandra") && rel != "cassandra/cqlstore" || strings.HasPrefix(rel, "schema") || strings.HasPrefix(rel, "cmd/") || strings.HasPrefix(rel, "scripts/") || strings.HasPrefix(rel, "examples/")
		for _, d := range strings.Fields(deps) {
			if strings.Contains(d, "gocql") && !driverOK {
				t.Errorf("%s depends on the driver (%s)", pkg, d)
			}
			if rel == "" && strings.HasPrefix(d, mod+"/") {
				t.Errorf("root package imports %s", d)
			}
		}
	}
}

// Planted defects reach the algorithms only through each package's
// TestingKnobs, given to a Locker when it is built: no package of a normal
// build exists to hold defects, and no production file is compiled only
// under the negative controls' tag, so what a user builds is what the model
// checks judged, with every knob nil.
func TestNoDefectPackageInTheBuild(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .GoFiles " "}} {{join .IgnoredGoFiles " "}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "github.com/lockstep-go/lockstep"
	// The algorithms' cores hold most of the defect branches' knobs: the
	// check must see them (a rename that left them out would pass vacuously).
	cores := map[string]bool{mod + "/internal/queue": false, mod + "/internal/shadow": false}
	defer func() {
		for c, seen := range cores {
			if !seen {
				t.Errorf("%s is not in the build's packages: update this test's list of cores", c)
			}
		}
	}()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, files, _ := strings.Cut(line, " ")
		if !strings.HasPrefix(pkg, mod) {
			continue
		}
		if _, ok := cores[pkg]; ok {
			cores[pkg] = true
		}
		if strings.Contains(pkg, "bugs") || strings.Contains(pkg, "defect") || strings.Contains(pkg, "plant") {
			t.Errorf("%s is in the build: planted defects belong in TestingKnobs, not in a package of their own", pkg)
		}
		for _, f := range strings.Fields(files) {
			if strings.Contains(f, "bugs") && !strings.HasSuffix(f, "_test.go") {
				t.Errorf("%s has the file %s, named for planted defects: a production file compiled only under a tag", pkg, f)
			}
		}
	}
}

// The algorithms' cores (internal/queue, internal/shadow, internal/combine)
// are called by their public packages and by the composers only: every
// other package takes a lock through a public package's API, so the cores'
// interface stays this module's business (docs/architecture.md, "Public
// packages, algorithms and the lock manager"). The model checks
// (propertytests) are of this module too, and read the queue core's counts
// of tokens taken from values drawn ahead (queue.Locker.AheadTaken), which
// no public API carries.
func TestCoresOnlyBehindFrontsAndComposers(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}: {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "github.com/lockstep-go/lockstep"
	allowed := map[string]map[string]bool{
		mod + "/internal/queue":   {mod + "/queuelock": true, mod + "/combined": true, mod + "/internal/combine": true, mod + "/migration": true, mod + "/propertytests": true},
		mod + "/internal/shadow":  {mod + "/shadowlock": true, mod + "/combined": true, mod + "/internal/combine": true, mod + "/migration": true},
		mod + "/internal/combine": {mod + "/combined": true, mod + "/migration": true},
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, ": ")
		for _, d := range strings.Fields(deps) {
			if callers, core := allowed[d]; core && !callers[pkg] {
				t.Errorf("%s imports the core %s: use its front package (queuelock, shadowlock)", pkg, d)
			}
		}
	}
}
