package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// binaries the run spawns.
type binaries struct {
	worker, lockctl, lockd string
	// python is the python of a fresh venv with lockd/python installed,
	// pyWorker the Python lockd worker it runs (robustness/pyworker).
	python, pyWorker string
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

// buildPython makes a fresh venv in dir/pyvenv with the Python client
// (lockd/python) installed as a user installs it, at the versions
// lockd/python/requirements.txt pins, as lockd/scripts/pytest does: a venv
// without pip of its own, filled by the pip of lockd/scripts/venv's venv,
// nothing compiled ahead. Needs python3 with venv and PyPI (or pip's cache).
func buildPython(ctx context.Context, repo, dir string, b *binaries) error {
	venv := filepath.Join(dir, "pyvenv")
	b.python = filepath.Join(venv, "bin", "python")
	b.pyWorker = filepath.Join(repo, "robustness", "pyworker", "lockd_worker.py")
	run := func(name string, args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = repo
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, stderr)
		}
		return out, nil
	}
	if err := os.RemoveAll(venv); err != nil {
		return err
	}
	helper, err := run(filepath.Join(repo, "lockd", "scripts", "venv"))
	if err != nil {
		return fmt.Errorf("the Python worker's venv: %w", err)
	}
	pip := filepath.Join(filepath.Dir(strings.TrimSpace(string(helper))), "pip")
	if _, err := run("python3", "-m", "venv", "--without-pip", venv); err != nil {
		return fmt.Errorf("the Python worker's venv: %w", err)
	}
	// A build left by an earlier install could put files no longer in src/
	// into the wheel.
	clean := func() {
		_ = os.RemoveAll(filepath.Join(repo, "lockd", "python", "build"))
		eggs, _ := filepath.Glob(filepath.Join(repo, "lockd", "python", "src", "*.egg-info"))
		for _, e := range eggs {
			_ = os.RemoveAll(e)
		}
	}
	clean()
	defer clean()
	if _, err := run(pip, "--python", b.python, "install", "--quiet", "--disable-pip-version-check", "--no-compile",
		"-c", filepath.Join(repo, "lockd", "python", "requirements.txt"), "./lockd/python"); err != nil {
		return fmt.Errorf("the Python worker's venv: %w", err)
	}
	return nil
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
