package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A release: one commit moves every intra-repository require to the version
// (comments and other requires kept), removes the replace directives into
// the checkout and drops "-dev" from lockstep.Version; every released module
// gets its tag on that commit, the tool module under scripts/ none; the
// next commit puts the replaces back; nothing is pushed, and the push
// command is printed. A second run of the same version is refused.
func TestRelease_TagsEveryModuleAtOneVersion(t *testing.T) {
	dir := fakeRepo(t)
	commitChangelog(t, dir, "## 0.1.0 — 2026-05-01")
	code, stdout, stderr := release(t, dir, gitEnv(true), "v0.1.0")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if got := git(t, dir, "tag", "-l"); got != "a/v0.1.0\nb/c/v0.1.0\nv0.1.0" {
		t.Errorf("tags:\n%s", got)
	}
	rel := git(t, dir, "rev-parse", "HEAD^")
	for _, tag := range []string{"v0.1.0", "a/v0.1.0", "b/c/v0.1.0"} {
		if c := git(t, dir, "rev-parse", tag+"^{commit}"); c != rel {
			t.Errorf("%s is at %s, not the release commit %s", tag, c, rel)
		}
	}
	if msg := git(t, dir, "log", "-1", "--format=%s", "HEAD^"); msg != "release v0.1.0" {
		t.Errorf("the release commit's subject is %q", msg)
	}
	if msg := git(t, dir, "log", "-1", "--format=%s"); !strings.HasPrefix(msg, "after release v0.1.0: ") {
		t.Errorf("the commit after the release has the subject %q", msg)
	}
	// The tagged commit: the same requires, no replace into the checkout.
	for name, want := range map[string]string{
		"a/go.mod":   "module " + root + "/a\n\ngo 1.26.0\n\nrequire " + root + " v0.1.0\n",
		"b/c/go.mod": "module " + root + "/b/c\n\ngo 1.26.0\n\nrequire (\n\t" + root + " v0.1.0\n\t" + root + "/a v0.1.0 // indirect\n\texample.com/other v1.2.3\n)\n",
	} {
		if got := git(t, dir, "show", "v0.1.0:"+name) + "\n"; got != want {
			t.Errorf("%s at the tag:\n%q\nwant:\n%q", name, got, want)
		}
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("the tree is not clean after the release:\n%s", st)
	}
	for name, want := range map[string]string{
		"a/go.mod": "module " + root + "/a\n\ngo 1.26.0\n\nrequire " + root + " v0.1.0\n\nreplace " + root + " => ../\n",
		"b/c/go.mod": "module " + root + "/b/c\n\ngo 1.26.0\n\nrequire (\n\t" + root + " v0.1.0\n\t" + root + "/a v0.1.0 // indirect\n\texample.com/other v1.2.3\n)\n\n" +
			"replace (\n\t" + root + " => ../..\n\t" + root + "/a => ../../a\n)\n",
		"version.go": "package lockstep\n\n// Version is the release.\nconst Version = \"0.1.0\"\n",
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != want {
			t.Errorf("%s after the release:\n%s\nwant:\n%s", name, b, want)
		}
	}
	if !strings.Contains(stdout, "git push --atomic origin HEAD:refs/heads/main v0.1.0 a/v0.1.0 b/c/v0.1.0\n") ||
		!strings.Contains(stdout, "nothing was pushed") {
		t.Errorf("stdout lacks the push command:\n%s", stdout)
	}
	if code, _, stderr := release(t, dir, gitEnv(true), "v0.1.0"); code != 1 || !strings.Contains(stderr, "the tag v0.1.0 exists already") {
		t.Errorf("a second release of v0.1.0: exit %d\n%s", code, stderr)
	}
}
