package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The etcd peer runs in a module of its own, etcdpeer/ (module
// github.com/lockstep-go/lockstep/cmd/lockbench/etcdpeer), so that the etcd
// client and what it pulls in — grpc, protobuf, zap — stay out of
// lockbench's go.mod and the library's (modules_test.go checks both graphs).
// When a real-backend run includes etcd, lockbench builds it once and runs
// it in place of itself for every etcd worker; it speaks the worker
// protocol of worker.go.

// etcdPeerModule is the etcd peer's module path; its directory is
// etcdpeer/ in this module (cmd/lockbench/etcdpeer in the repository).
const (
	etcdPeerModule  = "github.com/lockstep-go/lockstep/cmd/lockbench/etcdpeer"
	etcdPeerRepoDir = "cmd/lockbench/etcdpeer"
)

// withEtcdPeer returns o ready to run algos: if they include etcd, with the
// etcd peer built into a temporary directory that cleanup removes.
func (o realOptions) withEtcdPeer(algos []algorithm) (_ realOptions, cleanup func(), err error) {
	if !slices.ContainsFunc(algos, inEtcdPeer) {
		return o, func() {}, nil
	}
	dir := o.etcdPeerDir
	if dir == "" {
		if dir, err = findEtcdPeer(); err != nil {
			return o, nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "lockbench-etcdpeer-")
	if err != nil {
		return o, nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if o.etcdPeerExe, err = buildEtcdPeer(dir, tmp); err != nil {
		cleanup()
		return o, nil, err
	}
	return o, cleanup, nil
}

// findEtcdPeer returns the etcd peer's module directory, found from the
// module of the working directory: this module (cmd/lockbench, where
// `go run .` runs) or the library's module at the repository root.
func findEtcdPeer() (string, error) { return findEtcdPeerFrom("") }

// findEtcdPeerFrom is findEtcdPeer from the module of directory wd (empty:
// the working directory).
func findEtcdPeerFrom(wd string) (string, error) {
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Dir = wd
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("finding the etcd peer: go env GOMOD: %w", err)
	}
	if gomod := strings.TrimSpace(string(out)); gomod != "" && gomod != os.DevNull {
		root := filepath.Dir(gomod)
		for _, dir := range []string{filepath.Join(root, "etcdpeer"), filepath.Join(root, filepath.FromSlash(etcdPeerRepoDir))} {
			if isModule(dir, etcdPeerModule) {
				return dir, nil
			}
		}
	}
	return "", errors.New("the etcd algorithm runs in the etcd peer (" + etcdPeerRepoDir + "), which lockbench " +
		"builds from source: run lockbench inside the lockstep repository or pass -etcdpeer DIR")
}

// isModule reports whether dir holds the go.mod of module path.
func isModule(dir, path string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	return err == nil && bytes.HasPrefix(b, []byte("module "+path+"\n"))
}

// buildEtcdPeer builds the etcd peer's module in dir into outDir and
// returns the executable's path. The build may download the etcd client's
// modules; a failure carries the go command's output.
func buildEtcdPeer(dir, outDir string) (string, error) {
	exe := filepath.Join(outDir, "etcdpeer")
	fmt.Fprintf(os.Stderr, "lockbench: building the etcd peer in %s\n", dir)
	cmd := exec.Command("go", "build", "-o", exe, ".")
	cmd.Dir = dir
	// The peer's own go.mod decides its dependencies, whatever workspace
	// the caller is in.
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the etcd peer (go build in %s): %w\n%s", dir, err, strings.TrimSpace(out.String()))
	}
	return exe, nil
}
