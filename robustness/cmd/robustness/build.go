package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// binaries the run spawns.
type binaries struct {
	worker, lockctl, lockd string
}

// build compiles rbworker from the robustness module, lockctl from its own
// (cmd/lockctl) and lockd from lockd's (lockd/cmd/lockd). The planted
// controls run the same worker with --plant.
func build(ctx context.Context, repo, dir string) (binaries, error) {
	b := binaries{
		worker:  filepath.Join(dir, "rbworker"),
		lockctl: filepath.Join(dir, "lockctl"),
		lockd:   filepath.Join(dir, "lockd"),
	}
	steps := [][]string{
		{filepath.Join(repo, "robustness"), "go", "build", "-o", b.worker, "./cmd/rbworker"},
		{filepath.Join(repo, "cmd", "lockctl"), "go", "build", "-o", b.lockctl, "."}, // a module of its own
		{filepath.Join(repo, "lockd"), "go", "build", "-o", b.lockd, "./cmd/lockd"},  // lockd's module
	}
	for _, s := range steps {
		cmd := exec.CommandContext(ctx, s[1], s[2:]...)
		cmd.Dir = s[0]
		if out, err := cmd.CombinedOutput(); err != nil {
			return b, fmt.Errorf("%s (in %s): %w: %s", strings.Join(s[1:], " "), s[0], err, out)
		}
	}
	return b, nil
}

// lockctl runs the lockctl binary against the cluster.
func (r *runner) lockctl(ctx context.Context, keyspace string, args ...string) error {
	full := append([]string{"--hosts", strings.Join(r.cluster.Hosts(), ","), "--keyspace", keyspace, "--timeout", "20s"}, args...)
	cmd := exec.CommandContext(ctx, r.bin.lockctl, full...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("lockctl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
