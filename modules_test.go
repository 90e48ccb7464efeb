package lockstep_test

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// The repository's modules require each other by one released version, so a
// user's `go get` of a nested module (lockd, an adapter) resolves the library
// from the module proxy: a replace directive is ignored when its module is a
// dependency, and a v0.0.0 (or its pseudo-version) exists nowhere. Each
// nested module still builds against this checkout, through a replace of
// every module of the repository in its graph; scripts/release moves the
// version at each release.
func TestModules_RequireEachOtherByOneRealVersion(t *testing.T) {
	mods := repoModules(t, ".")
	require.Greater(t, len(mods), 1, "no nested modules found: the test must run from the repository's root")
	root := mods["."].path
	dirOf := map[string]string{}
	for dir, m := range mods {
		dirOf[m.path] = dir
	}
	versions := map[string][]string{} // version -> "go.mod: module" lines requiring it
	for dir, m := range mods {
		for _, r := range m.requires {
			if !inRepo(root, r.path) {
				continue
			}
			where := filepath.Join(dir, "go.mod") + " requires " + r.path + " " + r.version
			if _, ok := dirOf[r.path]; !ok {
				t.Errorf("%s: no module of the repository has that path", where)
			}
			if strings.HasPrefix(r.version, "v0.0.0") {
				t.Errorf("%s: a v0.0.0 exists in no module proxy, so a user's go get of this module fails; require the released version (scripts/release sets it)", where)
			}
			versions[r.version] = append(versions[r.version], where)
		}
		// Development from a checkout: every module of the repository this
		// one reaches, directly or through another, comes from this tree.
		for p := range reachable(root, mods, dirOf, dir) {
			want, err := filepath.Rel(dir, dirOf[p])
			require.NoError(t, err)
			if got, ok := m.replaces[p]; !ok {
				t.Errorf("%s/go.mod reaches %s but does not replace it: add `replace %s => %s` so a checkout builds against itself", dir, p, p, want)
			} else if filepath.Clean(got) != want {
				t.Errorf("%s/go.mod replaces %s with %s, not its directory %s", dir, p, got, want)
			}
		}
	}
	require.NotEmpty(t, versions, "no module requires another: the parse found nothing")
	if len(versions) > 1 {
		var lines []string
		for _, ws := range versions {
			lines = append(lines, ws...)
		}
		sort.Strings(lines)
		t.Fatalf("the modules require %d different versions of each other; one release tags them all at one version:\n%s", len(versions), strings.Join(lines, "\n"))
	}
	for v := range versions {
		require.Regexp(t, `^v\d+\.\d+\.\d+$`, v, "a release version")
		next := strings.TrimSuffix(lockstep.Version, "-dev")
		require.False(t, semverLess(next, strings.TrimPrefix(v, "v")),
			"the modules require %s, newer than lockstep.Version %s", v, lockstep.Version)
	}
}

type goMod struct {
	path     string
	requires []modReq
	replaces map[string]string // module path -> replacement (directory or module)
}

type modReq struct{ path, version string }

// repoModules parses every go.mod under dir (testdata and hidden
// directories left out), keyed by its directory relative to dir.
func repoModules(t *testing.T, dir string) map[string]*goMod {
	t.Helper()
	mods := map[string]*goMod{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			rel, _ := filepath.Rel(dir, filepath.Dir(p))
			mods[rel] = parseGoMod(t, p)
		}
		return nil
	})
	require.NoError(t, err)
	return mods
}

// parseGoMod reads the module, require and replace directives of a go.mod,
// in their one-line and block forms.
func parseGoMod(t *testing.T, path string) *goMod {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	m := &goMod{replaces: map[string]string{}}
	block := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			continue
		case block != "" && fields[0] == ")":
			block = ""
			continue
		case block == "" && len(fields) == 2 && fields[1] == "(":
			block = fields[0]
			continue
		case block == "":
			block1 := fields[0]
			fields = fields[1:]
			if block1 == "module" && len(fields) == 1 {
				m.path = strings.Trim(fields[0], `"`)
			}
			addDirective(m, block1, fields)
			continue
		}
		addDirective(m, block, fields)
	}
	require.NoError(t, sc.Err(), path)
	require.NotEmpty(t, m.path, "%s: no module line", path)
	return m
}

func addDirective(m *goMod, verb string, f []string) {
	switch {
	case verb == "require" && len(f) == 2:
		m.requires = append(m.requires, modReq{f[0], f[1]})
	case verb == "replace" && len(f) >= 3:
		arrow := 1
		if f[1] != "=>" {
			arrow = 2 // a replace of one version: path version => target
		}
		if len(f) > arrow+1 {
			m.replaces[f[0]] = f[arrow+1]
		}
	}
}

func inRepo(root, path string) bool { return path == root || strings.HasPrefix(path, root+"/") }

// reachable is every module of the repository that the module in dir
// requires, directly or through the go.mod of another module of the
// repository.
func reachable(root string, mods map[string]*goMod, dirOf map[string]string, dir string) map[string]bool {
	seen := map[string]bool{}
	var walk func(d string)
	walk = func(d string) {
		for _, r := range mods[d].requires {
			if !inRepo(root, r.path) || seen[r.path] {
				continue
			}
			seen[r.path] = true
			if next, ok := dirOf[r.path]; ok {
				walk(next)
			}
		}
	}
	walk(dir)
	return seen
}

var semverRE = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)$`)

// semverLess reports whether release a (X.Y.Z) comes before release b.
func semverLess(a, b string) bool {
	ma, mb := semverRE.FindStringSubmatch(a), semverRE.FindStringSubmatch(b)
	if ma == nil || mb == nil {
		return a < b
	}
	for i := 1; i <= 3; i++ {
		x, _ := strconv.Atoi(ma[i])
		y, _ := strconv.Atoi(mb[i])
		if x != y {
			return x < y
		}
	}
	return false
}
