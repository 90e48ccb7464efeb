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
// client and what it pulls in — grpc, protobuf, zap — stay out of this
// module's go.mod and out of the module graph of every user of the library.
// When a real-backend run includes etcd, lockbench builds it once and runs
// it in place of itself for every etcd worker; it speaks the worker
// protocol of worker.go.

// etcdPeerModule is the etcd peer's module directory relative to this
// module's root.
const etcdPeerModule = "cmd/lockbench/etcdpeer"

// withEtcdPeer returns o ready to run algos: if they include etcd, with the
// etcd peer built into a temporary directory that cleanup removes.
func (o realOptions) withEtcdPeer(algos []algorithm) (_ realOptions, cleanup func(), err error) {
	if !slices.Contains(algos, algoEtcd) {
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

// findEtcdPeer returns the etcd peer's module directory in the module of
// the working directory, which must be this repository.
func findEtcdPeer() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("finding the etcd peer: go env GOMOD: %w", err)
	}
	if gomod := strings.TrimSpace(string(out)); gomod != "" && gomod != os.DevNull {
		dir := filepath.Join(filepath.Dir(gomod), filepath.FromSlash(etcdPeerModule))
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
	}
	return "", errors.New("the etcd algorithm runs in the etcd peer (" + etcdPeerModule + "), which lockbench " +
		"builds from source: run lockbench inside the lockstep repository or pass -etcdpeer DIR")
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
