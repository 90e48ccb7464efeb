package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
)

// The lockd algorithm of -scenario service measures the real server: the
// lockd module's cmd/lockd, built from source and started by lockbench on
// loopback against the bench's cluster and keyspace, and called by the lockd
// peer (lockdpeer/, module
// github.com/lockstep-go/lockstep/cmd/lockbench/lockdpeer), a program of its
// own for the reason the etcd peer is: Connect and protobuf, which lockd's
// generated client needs, stay out of lockbench's go.mod (modules_test.go).
// Its workers speak the worker protocol of worker.go.

// The lockd module and the lockd peer's, and their directories in the
// repository.
const (
	lockdModule      = "github.com/lockstep-go/lockstep/lockd"
	lockdRepoDir     = "lockd"
	lockdPeerModule  = "github.com/lockstep-go/lockstep/cmd/lockbench/lockdpeer"
	lockdPeerRepoDir = "cmd/lockbench/lockdpeer"
)

// findModuleFrom returns the directory of module, found from the module of
// directory wd (empty: the working directory): lockbench's own module
// (cmd/lockbench, where `go run .` runs) or the library's at the
// repository root. repoDir is its directory in the repository.
func findModuleFrom(wd, module, repoDir, flagName string) (string, error) {
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Dir = wd
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("finding %s: go env GOMOD: %w", repoDir, err)
	}
	if gomod := strings.TrimSpace(string(out)); gomod != "" && gomod != os.DevNull {
		root := filepath.Dir(gomod)
		for _, dir := range []string{filepath.Join(root, filepath.FromSlash(repoDir)), filepath.Join(root, "..", "..", filepath.FromSlash(repoDir))} {
			if isModule(dir, module) {
				return filepath.Clean(dir), nil
			}
		}
	}
	return "", fmt.Errorf("lockbench builds %s from source: run it inside the lockstep repository or pass -%s DIR", repoDir, flagName)
}

// buildModule builds package pkg of the module in dir into outDir/name and
// returns the executable's path; a failure carries the go command's
// output.
func buildModule(dir, pkg, outDir, name string) (string, error) {
	exe := filepath.Join(outDir, name)
	fmt.Fprintf(os.Stderr, "lockbench: building %s in %s\n", name, dir)
	cmd := exec.Command("go", "build", "-o", exe, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building %s (go build %s in %s): %w\n%s", name, pkg, dir, err, strings.TrimSpace(string(out)))
	}
	return exe, nil
}

// lockdServer is a running lockd.
type lockdServer struct {
	cmd  *exec.Cmd
	url  string
	done chan error // the process's exit, once
}

// servingLine is lockd's first line: where it serves.
var servingLine = regexp.MustCompile(`^lockd: serving lockstep\.v1 on (https?://[^ ]+) `)

// lockdURLOf returns the URL of lockd's first line, or an error quoting it.
func lockdURLOf(line string) (string, error) {
	m := servingLine.FindStringSubmatch(line)
	if m == nil {
		return "", fmt.Errorf("lockd's first line %q does not say where it serves", line)
	}
	return m[1], nil
}

// startLockd starts the lockd executable on loopback against the bench's
// cluster and keyspace (open mode, which lockd allows on loopback only),
// with o's extra lockd flags after lockbench's, logging to logPath, and
// waits for its first line.
func startLockd(exe, logPath string, o realOptions) (*lockdServer, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	args := append([]string{"--hosts", o.hosts, "--keyspace", o.keyspace, "--listen", "127.0.0.1:0", "--log-level", "warn"}, strings.Fields(o.lockdFlags)...)
	cmd := exec.Command(exe, args...)
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting lockd: %w", err)
	}
	s := &lockdServer{cmd: cmd, done: make(chan error, 1)}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdout)
		s.done <- cmd.Wait()
	}()
	select {
	case line, ok := <-lines:
		if ok {
			if s.url, err = lockdURLOf(line); err == nil {
				return s, nil
			}
		} else {
			err = fmt.Errorf("lockd exited before serving: %v (its log: %s)", <-s.done, logPath)
			return nil, err
		}
	case <-time.After(workerStartup):
		err = fmt.Errorf("lockd did not say where it serves within %v (its log: %s)", workerStartup, logPath)
	}
	s.stop()
	return nil, err
}

// stop asks lockd to shut down gracefully (SIGTERM) and kills it if it
// has not exited within 30 s. It returns how it exited.
func (s *lockdServer) stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		return err
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		return fmt.Errorf("lockd did not stop within 30 s of SIGTERM: killed (%v)", <-s.done)
	}
}

// moveToNew moves the bench keyspace's fleet phase to new, one step at a
// time, with migration's Controller (as `lockctl phase set` does): lockd
// is a migration.Locker following the phase, and the service scenario
// compares it with the queue lock in mode new. A fresh bench keyspace is in
// phase legacy; nothing in it holds legacy locks through a migration
// Locker (lockbench's own lockers are not in the census), so no move is
// blocked. It returns the phase it found.
func moveToNew(ctx context.Context, o realOptions) (migration.Phase, error) {
	s, err := connect(splitList(o.hosts))
	if err != nil {
		return migration.Phase{}, err
	}
	defer s.Close()
	store, err := newCassandraStore(s, o.keyspace)
	if err != nil {
		return migration.Phase{}, err
	}
	c, err := migration.NewController(store, nil)
	if err != nil {
		return migration.Phase{}, err
	}
	found, err := c.Get(ctx)
	if err != nil {
		return found, fmt.Errorf("reading the bench keyspace's phase: %w", err)
	}
	p := found
	for range 4 {
		if p.Mode == lockstep.ModeNew && !p.Pending() {
			return found, nil
		}
		target := nextTowardNew(p)
		if err := c.Set(ctx, target); err != nil {
			return found, fmt.Errorf("moving the bench keyspace's phase from %v to %v: %w", p, target, err)
		}
		if p, err = c.Get(ctx); err != nil {
			return found, err
		}
	}
	return found, errors.New("the bench keyspace's phase did not reach new in four steps: " + p.String())
}

// nextTowardNew is the step a Controller's Set takes from p towards new: a
// pending move is finished first.
func nextTowardNew(p migration.Phase) lockstep.Mode {
	switch {
	case p.Pending():
		return p.Target
	case p.Mode == lockstep.ModeLegacy:
		return lockstep.ModeCombined
	default:
		return lockstep.ModeNew
	}
}
