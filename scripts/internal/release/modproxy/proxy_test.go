package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// A repository of two modules, the root (with an upper-case letter, which
// the proxy's directories escape and the zips' file names do not) and a nested one, each tagged at v0.1.0 and the
// root also at v0.2.0.
func testRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":     "module example.com/Lock\n\ngo 1.26.0\n",
		"lock.go":    "package lock\n\nconst Name = \"lock\"\n",
		"LICENSE":    "a license\n",
		"sub/go.mod": "module example.com/Lock/sub\n\ngo 1.26.0\n",
		"sub/sub.go": "package sub\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "one"}, {"tag", "v0.1.0"}, {"tag", "sub/v0.1.0"},
		{"commit", "-q", "--allow-empty", "-m", "two"}, {"tag", "v0.2.0"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func TestRun_WritesTheGoproxyLayout(t *testing.T) {
	repo, out := testRepo(t), t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-repo", repo, "-out", out, "v0.2.0", "v0.1.0", "sub/v0.1.0"}, &stdout, &stderr); err != nil {
		t.Fatal(err, stderr.String())
	}
	root := filepath.Join(out, "example.com", "!lock", "@v")
	list, err := os.ReadFile(filepath.Join(root, "list"))
	if err != nil || string(list) != "v0.1.0\nv0.2.0\n" {
		t.Errorf("list = %q, %v; want both versions in order", list, err)
	}
	var info struct{ Version, Time string }
	b, err := os.ReadFile(filepath.Join(root, "v0.1.0.info"))
	if err != nil || json.Unmarshal(b, &info) != nil || info.Version != "v0.1.0" || info.Time == "" {
		t.Errorf("v0.1.0.info = %s (%v)", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "v0.1.0.mod")); !strings.HasPrefix(string(b), "module example.com/Lock\n") {
		t.Errorf("v0.1.0.mod = %q", b)
	}
	names := zipNames(t, filepath.Join(root, "v0.1.0.zip"))
	want := "example.com/Lock@v0.1.0/LICENSE example.com/Lock@v0.1.0/go.mod example.com/Lock@v0.1.0/lock.go"
	if strings.Join(names, " ") != want {
		t.Errorf("the root's zip holds %v; want %s (the nested module left out)", names, want)
	}
	sub := zipNames(t, filepath.Join(out, "example.com", "!lock", "sub", "@v", "v0.1.0.zip"))
	if strings.Join(sub, " ") != "example.com/Lock/sub@v0.1.0/LICENSE example.com/Lock/sub@v0.1.0/go.mod example.com/Lock/sub@v0.1.0/sub.go" {
		t.Errorf("the nested module's zip holds %v (its files and the root's LICENSE)", sub)
	}
	if !strings.Contains(stdout.String(), "modproxy: example.com/Lock/sub@v0.1.0 from tag sub/v0.1.0") {
		t.Errorf("stdout: %s", stdout.String())
	}
}

// The go command itself downloads and verifies a module from the layout.
func TestRun_TheGoCommandDownloadsFromIt(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	repo, out := testRepo(t), t.TempDir()
	if err := run([]string{"-repo", repo, "-out", out, "sub/v0.1.0"}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "mod", "download", "-json", "example.com/Lock/sub@v0.1.0")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOPROXY=file://"+filepath.ToSlash(out), "GOMODCACHE="+t.TempDir(), "GONOSUMDB=example.com", "GOFLAGS=-mod=mod", "GOWORK=off")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go mod download: %v\n%s", err, b)
	}
	if !strings.Contains(string(b), `"Version": "v0.1.0"`) || !strings.Contains(string(b), `"Sum": "h1:`) {
		t.Errorf("go mod download -json: %s", b)
	}
	// The module cache's files are read-only: make them removable for TempDir's cleanup.
	t.Cleanup(func() { _ = exec.Command("chmod", "-R", "u+w", cmd.Dir).Run() })
}

func TestRun_RefusesATagThatIsNoModuleVersion(t *testing.T) {
	repo := testRepo(t)
	for tag, want := range map[string]string{
		"v0.1":        "not a canonical semantic version",
		"nope/v0.1.0": "no go.mod",
		"sub/v9.9.9":  "no go.mod",
	} {
		out := t.TempDir()
		err := run([]string{"-repo", repo, "-out", out, tag}, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("tag %s: err = %v, want %q", tag, err, want)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("tag %s: refused, but wrote %d entries", tag, len(entries))
		}
	}
}

func zipNames(t *testing.T, name string) []string {
	t.Helper()
	r, err := zip.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var names []string
	for _, f := range r.File {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	return names
}
