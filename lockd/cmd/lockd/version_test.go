package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// lockd --version prints one line and serves nothing.
func TestRun_VersionPrintsOneLineAndExits(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"--version"}, &stdout, &stderr, noEnv, nil))
	require.Regexp(t, `^lockd \S+.* commit .+ \(lockstep `+strings.ReplaceAll(lockstep.Version, ".", `\.`)+`, go1\.\d+.*\)\n$`, stdout.String())
	require.Empty(t, stderr.String())
}

// A lockd built in this checkout names the checkout's commit.
func TestBuild_VersionNamesTheCheckoutsCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lockd")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not a git checkout: ", err)
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	require.NoError(t, err)
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !fi.IsDir() {
		t.Skip("a git worktree (.git is a file): the go command records no VCS information there")
	}
	bin := filepath.Join(t.TempDir(), "lockd")
	out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(bin, "--version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), " commit "+strings.TrimSpace(string(head)), "lockd --version: %s", out)
}
