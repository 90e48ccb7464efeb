//go:build integration

package cassandra_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/locktest/clusterlock"
)

// The cluster tests (cluster_integration_test.go) stop, kill and restart
// nodes through scripts/cassandra; this file drives the script, keeps other
// test binaries off the cluster meanwhile, and makes the cluster whole again.

// clusterScript drives the nodes of the cluster in CASSANDRA_HOSTS through
// scripts/cassandra.
type clusterScript struct {
	path string
}

// requireCluster skips t unless CASSANDRA_HOSTS lists at least three hosts,
// and fails it unless they are the nodes scripts/cassandra manages (with the
// environment the test runs in), since the test must stop and kill them. It
// holds the cluster-tests lock exclusively until t ends: cleanups that t
// registers later (making the cluster whole) run before it is released.
func requireCluster(t *testing.T) *clusterScript {
	t.Helper()
	_, n := itSession(t) // fails if CASSANDRA_HOSTS is empty
	if n < 3 {
		t.Skipf("needs a 3-node cluster (scripts/cassandra up --nodes 3, CASSANDRA_HOSTS=127.0.0.1,127.0.0.2,127.0.0.3); CASSANDRA_HOSTS lists %d host(s)", n)
	}
	t.Cleanup(clusterlock.Take(t, true))
	path, err := filepath.Abs(filepath.Join("..", "scripts", "cassandra"))
	if err != nil {
		t.Fatal(err)
	}
	c := &clusterScript{path: path}
	out := c.run(t, "env")
	m := regexp.MustCompile(`(?m)^LOCKSTEP_CASSANDRA_HOSTS=(.*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("scripts/cassandra env printed no LOCKSTEP_CASSANDRA_HOSTS:\n%s", out)
	}
	managed, listed := splitHosts(m[1]), splitHosts(os.Getenv("CASSANDRA_HOSTS"))
	slices.Sort(managed)
	slices.Sort(listed)
	if !slices.Equal(managed, listed) {
		t.Fatalf("CASSANDRA_HOSTS %v is not the cluster scripts/cassandra manages here (%v); "+
			"run the test with the script's environment (LOCKSTEP_CASSANDRA_DIR, LOCKSTEP_CASSANDRA_IP_OFFSET)", listed, managed)
	}
	return c
}

func splitHosts(s string) []string {
	var out []string
	for _, h := range strings.Split(s, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// run runs scripts/cassandra with args and fails t if it fails.
func (c *clusterScript) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := c.try(t, args...)
	if err != nil {
		t.Fatalf("scripts/cassandra %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// try runs scripts/cassandra with args, logging what it reports.
func (c *clusterScript) try(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, c.path, args...).CombinedOutput()
	if args[0] != "env" && args[0] != "status" {
		t.Logf("scripts/cassandra %s (%.1fs):\n%s", strings.Join(args, " "), time.Since(start).Seconds(), out)
	}
	return string(out), err
}

var downRE = regexp.MustCompile(`(?m)^node (\d+) \S+: down$`)

// makeWhole starts every node that is down and waits until all replicas are
// seen up.
func (c *clusterScript) makeWhole(t *testing.T) {
	t.Helper()
	out, _ := c.try(t, "status") // exits non-zero while a node is down
	for _, m := range downRE.FindAllStringSubmatch(out, -1) {
		if _, err := c.try(t, "start", m[1]); err != nil {
			t.Errorf("restoring node %s: %v", m[1], err)
		}
	}
	if out, err := c.try(t, "status"); err != nil {
		t.Errorf("cluster not whole after the test: %v\n%s", err, out)
	}
	c.awaitAllReplicas(t)
}

// awaitAllReplicas waits until a write and a read at ALL succeed through the
// test's session: every replica is up in the coordinators' view.
func (c *clusterScript) awaitAllReplicas(t *testing.T) {
	t.Helper()
	session, _ := itSession(t)
	all, err := cassandra.New(session, itKeyspace, cassandra.WithConsistency(gocql.All, gocql.All))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := all.Put(ctx, "queue_lock", "cluster/probe", lockstep.Cell{Column: "p", Timestamp: time.Now().UnixMicro(), TTL: time.Minute})
		if err == nil {
			_, err = all.Read(ctx, "queue_lock", "cluster/probe", lockstep.Slice{})
		}
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("writes and reads at ALL still fail a minute after the restart: %v", err)
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}
