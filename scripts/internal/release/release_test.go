package release

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const root = "github.com/lockstep-go/lockstep"

// fakeRepo is a git repository laid out as this one is, in small: the root
// module, a nested module a, a nested module b/c that requires a in a
// block, a tool module under scripts/ that is not released, version.go at
// 0.1.0-dev, a CHANGELOG whose newest entry is 0.1.0 — unreleased, and
// this checkout's scripts/release.
func fakeRepo(t *testing.T) string {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("..", "..", "release"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":       "module " + root + "\n\ngo 1.26.0\n",
		"version.go":   "package lockstep\n\n// Version is the release.\nconst Version = \"0.1.0-dev\"\n",
		"CHANGELOG.md": "# Changelog\n\n## Versions\n\nSemantic.\n\n## 0.1.0 — unreleased\n\nThe first.\n",
		"a/go.mod":     "module " + root + "/a\n\ngo 1.26.0\n\nrequire " + root + " v0.0.0\n\nreplace " + root + " => ../\n",
		"b/c/go.mod": "module " + root + "/b/c\n\ngo 1.26.0\n\nrequire (\n\t" + root + " v0.0.0-00010101000000-000000000000\n\t" + root + "/a v0.0.0 // indirect\n\texample.com/other v1.2.3\n)\n\n" +
			"replace (\n\t" + root + " => ../..\n\t" + root + "/a => ../../a\n)\n",
		"scripts/internal/tool/go.mod": "module " + root + "/scripts/internal/tool\n\ngo 1.26.0\n",
		"scripts/release":              string(script),
	}
	for name, body := range files {
		write(t, dir, name, body)
	}
	if err := os.Chmod(filepath.Join(dir, "scripts", "release"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "the tree")
	return dir
}

// commitChangelog sets the newest entry's heading and commits it.
func commitChangelog(t *testing.T, dir, heading string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "CHANGELOG.md", strings.Replace(string(b), "## 0.1.0 — unreleased", heading, 1))
	git(t, dir, "commit", "-q", "-a", "-m", "changelog: "+heading)
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitEnv is the environment without the caller's git settings, with an
// identity, or without one (and git told not to guess one).
func gitEnv(identity bool) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if identity {
		return append(env, "GIT_AUTHOR_NAME=Rel Ease", "GIT_AUTHOR_EMAIL=rel@example.com", "GIT_COMMITTER_NAME=Rel Ease", "GIT_COMMITTER_EMAIL=rel@example.com")
	}
	return append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.useConfigOnly", "GIT_CONFIG_VALUE_0=true", "EMAIL=")
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(true)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func release(t *testing.T, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(dir, "scripts", "release")}, args...)...)
	cmd.Dir = dir
	cmd.Env = env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if x, ok := err.(*exec.ExitError); ok {
		return x.ExitCode(), o.String(), e.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, o.String(), e.String()
}

// state is what a release could change: HEAD, the tags, the status, and
// every file's content.
func state(t *testing.T, dir string) string {
	t.Helper()
	s := git(t, dir, "rev-parse", "HEAD") + "\n" + git(t, dir, "tag", "-l") + "\n" + git(t, dir, "status", "--porcelain") + "\n"
	for _, f := range []string{"go.mod", "a/go.mod", "b/c/go.mod", "version.go", "CHANGELOG.md", "scripts/internal/tool/go.mod"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		s += f + ":\n" + string(b)
	}
	return s
}
