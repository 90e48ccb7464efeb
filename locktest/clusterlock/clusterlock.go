package clusterlock

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// Take takes the file lock of the cluster CASSANDRA_HOSTS names, shared or
// exclusive, waiting for it if need be, and returns the unlock.
func Take(t testing.TB, exclusive bool) func() {
	t.Helper()
	var hosts []string
	for _, h := range strings.Split(os.Getenv("CASSANDRA_HOSTS"), ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	slices.Sort(hosts)
	path := filepath.Join(os.TempDir(), "lockstep-it-"+strings.Join(hosts, "_")+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatalf("cluster tests lock: %v", err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		t.Logf("waiting for %s: cluster tests stop and kill nodes", path)
		err = syscall.Flock(int(f.Fd()), how)
	}
	if err != nil {
		f.Close()
		t.Fatalf("cluster tests lock %s: %v", path, err)
	}
	return func() { f.Close() } // closing the file releases the lock
}
