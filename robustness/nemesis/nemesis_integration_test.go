//go:build integration

package nemesis

// These tests show that each nemesis takes effect on a real 3-node cluster
// and that Heal undoes it. They attach to a cluster started by
//
//	LOCKSTEP_CASSANDRA_IP_OFFSET=60 LOCKSTEP_CASSANDRA_DIR=/tmp/cass-robust \
//	LOCKSTEP_CASSANDRA_CGROUP=lockstep-robust60 LOCKSTEP_CASSANDRA_SKEW_CLOCK=1 \
//	scripts/cassandra up --nodes 3
//
// (add --dcs 2 for the DC partition's test, dc_integration_test.go, which
// skips on one data centre) and read ROBUSTNESS_IP_OFFSET and ROBUSTNESS_DIR
// (defaults 60 and /tmp/cass-robust). Run as root: go test -tags
// integration ./nemesis/

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep/robustness/cluster"
)

const ks = "nemesis_test"

func attach(t *testing.T) *cluster.Cluster {
	t.Helper()
	off := 60
	if s := os.Getenv("ROBUSTNESS_IP_OFFSET"); s != "" {
		off, _ = strconv.Atoi(s)
	}
	dir := os.Getenv("ROBUSTNESS_DIR")
	if dir == "" {
		dir = "/tmp/cass-robust"
	}
	c, err := cluster.New(cluster.Config{IPOffset: off, Dir: dir, CGroup: fmt.Sprintf("lockstep-robust%d", off)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Load(ctx); err != nil {
		t.Skipf("no robustness cluster: %v", err)
	}
	for n := 1; n <= cluster.Size; n++ {
		if !c.Running(n) {
			t.Skipf("node %d not running", n)
		}
	}
	if err := c.CreateKeyspace(ctx, ks, 3); err != nil {
		t.Fatal(err)
	}
	s := session(t, c, 1, gocql.All)
	if err := s.Query(`CREATE TABLE IF NOT EXISTS ` + ks + `.kv (k text PRIMARY KEY, v int)`).Exec(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := Cleanup(context.Background(), c); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return c
}

func session(t *testing.T, c *cluster.Cluster, n int, cons gocql.Consistency) *gocql.Session {
	t.Helper()
	s, err := c.Session(n, cons, 4*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func write(s *gocql.Session, k string) error {
	return s.Query(`INSERT INTO `+ks+`.kv (k, v) VALUES (?, 1)`, k).Exec()
}

// eventually retries f for up to d (a healed link takes a few seconds to be
// used again: reconnection, gossip marking the peer up).
func eventually(t *testing.T, d time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after %v: %v", what, d, err)
		}
		time.Sleep(time.Second)
	}
}

func noTables(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	ts, err := Tables(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) > 0 {
		t.Fatalf("nftables tables left after heal: %v", ts)
	}
}

func TestIsolateOneNode(t *testing.T) {
	c := attach(t)
	ctx := context.Background()
	s1 := session(t, c, 1, gocql.Quorum)
	s2 := session(t, c, 2, gocql.Quorum)
	eventually(t, 30*time.Second, "QUORUM write through n1 before the fault", func() error { return write(s1, "a") })
	p := Isolate(c, 1)
	if err := p.Inject(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Inject(ctx); err != nil { // idempotent
		t.Fatal(err)
	}
	// Every QUORUM write coordinated by the isolated node must fail; the
	// majority side still accepts them.
	for i := 0; i < 3; i++ {
		err := write(s1, fmt.Sprintf("iso-%d", i))
		if err == nil {
			t.Fatalf("QUORUM write through isolated n1 succeeded")
		}
		t.Logf("write through isolated n1: %v", err)
	}
	eventually(t, 30*time.Second, "QUORUM write through n2 during the partition", func() error { return write(s2, "b") })
	if err := p.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	noTables(t, c)
	eventually(t, 60*time.Second, "QUORUM write through n1 after heal", func() error { return write(s1, "c") })
}

func TestBridgeAndOneWayAndLossDropPackets(t *testing.T) {
	c := attach(t)
	ctx := context.Background()
	s1 := session(t, c, 1, gocql.Quorum)
	for _, nem := range []Nemesis{Bridge(c, 1, 3), OneWay(c, 1, 2), mustLoss(t, c, 1, 2, 50), Halves(c, []int{3})} {
		t.Run(nem.Name(), func(t *testing.T) {
			if err := nem.Inject(ctx); err != nil {
				t.Fatal(err)
			}
			// Traffic through n1 must hit the rules: dropped packets count up.
			deadline := time.Now().Add(20 * time.Second)
			var dropped int
			for time.Now().Before(deadline) {
				_ = write(s1, "x")
				dropped = droppedPackets(t, c)
				if dropped > 0 {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if dropped == 0 {
				t.Fatalf("%s: no packet dropped in 20s", nem.Name())
			}
			t.Logf("%s: %d packets dropped", nem.Name(), dropped)
			if err := nem.Heal(ctx); err != nil {
				t.Fatal(err)
			}
			noTables(t, c)
		})
	}
	eventually(t, 60*time.Second, "QUORUM write through n1 after heal", func() error { return write(s1, "y") })
}

func mustLoss(t *testing.T, c *cluster.Cluster, a, b, p int) *Loss {
	l, err := NewLoss(c, a, b, p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// droppedPackets sums the counters of this cluster's nemesis tables.
func droppedPackets(t *testing.T, c *cluster.Cluster) int {
	ts, err := Tables(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, tb := range ts {
		out, err := exec.Command("nft", "list", "table", "inet", tb).CombinedOutput()
		if err != nil {
			t.Fatalf("nft list: %v: %s", err, out)
		}
		f := strings.Fields(string(out))
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "packets" {
				n, _ := strconv.Atoi(f[i+1])
				total += n
			}
		}
	}
	return total
}

func TestPauseNode(t *testing.T) {
	c := attach(t)
	ctx := context.Background()
	all := session(t, c, 1, gocql.All)
	eventually(t, 30*time.Second, "ALL write before the fault", func() error { return write(all, "p0") })
	p := NewPauseNode(c, 3)
	if err := p.Inject(ctx); err != nil {
		t.Fatal(err)
	}
	pid, _ := c.PID(3)
	// A many-threaded JVM stops thread by thread: wait for the state.
	for i := 0; i < 40 && procState(t, pid) != "T"; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if st := procState(t, pid); st != "T" {
		t.Fatalf("paused node's state is %q, want T (stopped)", st)
	}
	if err := write(all, "p1"); err == nil {
		t.Fatal("ALL write succeeded with n3 paused")
	}
	if err := p.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	if st := procState(t, pid); st == "T" {
		t.Fatal("node still stopped after heal")
	}
	eventually(t, 60*time.Second, "ALL write after heal", func() error { return write(all, "p2") })
}

func procState(t *testing.T, pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[0]
}

func TestPauseClient(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	p := &PauseClient{Label: "sleep", PID: func() (int, error) { return cmd.Process.Pid, nil }}
	ctx := context.Background()
	if err := p.Inject(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if st := procState(t, cmd.Process.Pid); st != "T" {
		t.Fatalf("paused client state %q, want T", st)
	}
	if err := p.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if st := procState(t, cmd.Process.Pid); st == "T" {
		t.Fatal("client still stopped after heal")
	}
}
