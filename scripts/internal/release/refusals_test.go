package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each refusal of scripts/release, one by one: the exit status is 1, the
// message says what is wrong and what to do, and the repository (HEAD, the
// tags, the work tree) is as it was.
func TestRelease_RefusalsChangeNothing(t *testing.T) {
	dated := func(t *testing.T, dir string) { commitChangelog(t, dir, "## 0.1.0 — 2026-05-01") }
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, dir string)
		noIdent bool
		args    []string
		want    string
	}{
		{name: "no argument", prepare: dated, want: "usage: scripts/release vX.Y.Z"},
		{name: "no v", prepare: dated, args: []string{"0.1.0"}, want: "0.1.0 is not a release version vX.Y.Z"},
		{name: "two numbers", prepare: dated, args: []string{"v0.1"}, want: "is not a release version"},
		{name: "pre-release", prepare: dated, args: []string{"v0.1.0-rc.1"}, want: "is not a release version"},
		{name: "leading zero", prepare: dated, args: []string{"v0.01.0"}, want: "is not a release version"},
		{name: "no git identity", prepare: dated, noIdent: true, args: []string{"v0.1.0"}, want: "git has no identity"},
		{name: "modified file", args: []string{"v0.1.0"}, want: "the work tree is not clean",
			prepare: func(t *testing.T, dir string) { dated(t, dir); write(t, dir, "a/go.mod", "module changed\n") }},
		{name: "staged file", args: []string{"v0.1.0"}, want: "the work tree is not clean",
			prepare: func(t *testing.T, dir string) {
				dated(t, dir)
				write(t, dir, "version.go", "package lockstep\n")
				git(t, dir, "add", "version.go")
			}},
		{name: "untracked file", args: []string{"v0.1.0"}, want: "?? notes.txt",
			prepare: func(t *testing.T, dir string) { dated(t, dir); write(t, dir, "notes.txt", "x\n") }},
		{name: "changelog unreleased", prepare: func(*testing.T, string) {}, args: []string{"v0.1.0"},
			want: `CHANGELOG.md's entry of 0.1.0 reads "## 0.1.0 — unreleased": date it`},
		{name: "changelog without a date", args: []string{"v0.1.0"}, want: `reads "## 0.1.0": date it`,
			prepare: func(t *testing.T, dir string) { commitChangelog(t, dir, "## 0.1.0") }},
		{name: "changelog date malformed", args: []string{"v0.1.0"}, want: `reads "## 0.1.0 — May 1": date it`,
			prepare: func(t *testing.T, dir string) { commitChangelog(t, dir, "## 0.1.0 — May 1") }},
		{name: "changelog newest is another release", args: []string{"v0.1.0"},
			want:    `newest release heading is "## 0.0.9 — 2026-01-01", not 0.1.0's`,
			prepare: func(t *testing.T, dir string) { commitChangelog(t, dir, "## 0.0.9 — 2026-01-01") }},
		{name: "version ahead of lockstep.Version", args: []string{"v0.2.0"}, want: "lockstep.Version is 0.1.0-dev, so this tree heads to 0.1.0, not 0.2.0",
			prepare: func(t *testing.T, dir string) { commitChangelog(t, dir, "## 0.2.0 — 2026-05-01") }},
		{name: "tag exists", args: []string{"v0.1.0"}, want: "the tag a/v0.1.0 exists already",
			prepare: func(t *testing.T, dir string) { dated(t, dir); git(t, dir, "tag", "a/v0.1.0") }},
		{name: "module path not its directory", args: []string{"v0.1.0"}, want: "d/go.mod is module example.com/elsewhere, not " + root + "/d",
			prepare: func(t *testing.T, dir string) {
				dated(t, dir)
				write(t, dir, "d/go.mod", "module example.com/elsewhere\n")
				git(t, dir, "add", "d/go.mod")
				git(t, dir, "commit", "-q", "-m", "d")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fakeRepo(t)
			tc.prepare(t, dir)
			before := state(t, dir)
			code, stdout, stderr := release(t, dir, gitEnv(!tc.noIdent), tc.args...)
			if code != 1 {
				t.Errorf("exit %d, want 1 (a refusal)\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "release: nothing was changed") {
				t.Errorf("stderr does not say %q and that nothing changed:\n%s", tc.want, stderr)
			}
			if after := state(t, dir); after != before {
				t.Errorf("the refusal changed the repository:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// A failure after the first change (here a pre-commit hook that refuses the
// commit) puts the tree, HEAD and the tags back.
func TestRelease_AFailedCommitIsUndone(t *testing.T) {
	dir := fakeRepo(t)
	commitChangelog(t, dir, "## 0.1.0 — 2026-05-01")
	write(t, dir, ".git/hooks/pre-commit", "#!/bin/sh\necho 'hook: no' >&2\nexit 1\n")
	if err := os.Chmod(filepath.Join(dir, ".git", "hooks", "pre-commit"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := state(t, dir)
	code, _, stderr := release(t, dir, gitEnv(true), "v0.1.0")
	if code == 0 || !strings.Contains(stderr, "putting the tree, HEAD and the tags back") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if after := state(t, dir); after != before {
		t.Errorf("the failed release left changes:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
