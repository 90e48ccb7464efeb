package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lockbench is a module of its own so that the library's go.mod carries
// only what the library needs: the plot's font (golang.org/x/image)
// is lockbench's alone, and the etcd client and what it pulls in belong to
// the etcd peer's module (etcdpeer/), which lockbench builds and runs as a
// separate program, so they are in neither graph; Connect and lockd's
// generated client likewise belong to the lockd peer's module (lockdpeer/).
var (
	notInLibrary   = []string{"golang.org/x/image", "github.com/lockstep-go/lockstep/cmd/"}
	notInLockbench = []string{"go.etcd.io/", "google.golang.org/grpc", "go.uber.org/zap", "connectrpc.com/", "github.com/lockstep-go/lockstep/lockd"}
)

// moduleGraph returns the module paths of `go list -m all` run in dir.
func moduleGraph(t *testing.T, dir string) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	cmd := exec.Command("go", "list", "-m", "all")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m all in %s: %v\n%s", dir, err, out)
	}
	var paths []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			paths = append(paths, f[0])
		}
	}
	return paths
}

// banned returns the paths that start with one of prefixes.
func banned(paths, prefixes []string) []string {
	var out []string
	for _, p := range paths {
		for _, b := range prefixes {
			if strings.HasPrefix(p, b) {
				out = append(out, p)
			}
		}
	}
	return out
}

func TestModuleGraph_LibraryHoldsNoBenchNorPlotNorEtcdModule(t *testing.T) {
	root := filepath.Join("..", "..")
	graph := moduleGraph(t, root)
	if len(graph) == 0 || graph[0] != "github.com/lockstep-go/lockstep" {
		t.Fatalf("go list -m all in %s does not start with the library's module: %q", root, graph)
	}
	for _, m := range banned(graph, append(notInLibrary, notInLockbench...)) {
		t.Errorf("the library's module graph holds %s: it belongs in cmd/lockbench's go.mod (or the etcd peer's)", m)
	}
}

func TestModuleGraph_LockbenchHoldsNoEtcdClientNorGRPC(t *testing.T) {
	graph := moduleGraph(t, ".")
	if len(graph) == 0 || graph[0] != "github.com/lockstep-go/lockstep/cmd/lockbench" {
		t.Fatalf("go list -m all here does not start with lockbench's module: %q", graph)
	}
	for _, m := range banned(graph, notInLockbench) {
		t.Errorf("lockbench's module graph holds %s: the etcd client belongs in %s", m, etcdPeerRepoDir)
	}
}
