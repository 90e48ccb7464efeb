//go:build integration

package nemesis

// These tests show that each nemesis takes effect on a real 3-node cluster
// and that Heal undoes it. They attach to a cluster started by
//
//	LOCKSTEP_CASSANDRA_IP_OFFSET=60 LOCKSTEP_CASSANDRA_DIR=/tmp/cass-robust \
//	LOCKSTEP_CASSANDRA_CGROUP=lockstep-robust60 LOCKSTEP_CASSANDRA_SKEW_CLOCK=1 \
//	scripts/cassandra up --nodes 3
//
// and read ROBUSTNESS_IP_OFFSET and ROBUSTNESS_DIR (defaults 60 and
// /tmp/cass-robust). Run as root: go test -tags integration ./nemesis/

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// serverSkew is node n's clock offset as TTL expiry sees it: a cell written
// through n1 at ALL with TTL 1000 s is read back through n at ONE; the read's
// nowInSeconds is n's clock, so the TTL left is 1000 − elapsed − skew
// (second resolution). Write timestamps are no good for this: Cassandra keeps
// them increasing per coordinator, so a backward step does not show.
func serverSkew(t *testing.T, c *cluster.Cluster, n int) time.Duration {
	t.Helper()
	k := fmt.Sprintf("skew-%d", time.Now().UnixNano())
	w := session(t, c, 1, gocql.All)
	t0 := time.Now()
	if err := w.Query(`INSERT INTO `+ks+`.kv (k, v) VALUES (?, 1) USING TTL 1000`, k).Exec(); err != nil {
		t.Fatal(err)
	}
	r := session(t, c, n, gocql.One)
	var left int
	if err := r.Query(`SELECT ttl(v) FROM `+ks+`.kv WHERE k = ?`, k).Scan(&left); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(t0)
	return (1000*time.Second - elapsed - time.Duration(left)*time.Second).Round(time.Second)
}

func TestClockSkew(t *testing.T) {
	c := attach(t)
	ctx := context.Background()
	near := func(d, want time.Duration) bool {
		return d-want >= -1500*time.Millisecond && d-want <= 1500*time.Millisecond
	}
	if d := serverSkew(t, c, 2); !near(d, 0) {
		t.Fatalf("n2 skewed by %v before the fault", d)
	}
	for _, off := range []time.Duration{20 * time.Second, -7 * time.Second} {
		b := Bump(c, 2, off)
		if err := b.Inject(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(ClockSettle)
		d := serverSkew(t, c, 2)
		t.Logf("%s: n2 expires cells as if %v off the host clock", b.Name(), d)
		if !near(d, off) {
			t.Fatalf("%s: skew seen %v, want about %v", b.Name(), d, off)
		}
		if d1 := serverSkew(t, c, 3); !near(d1, 0) {
			t.Fatalf("n3 skewed by %v while only n2 should be", d1)
		}
	}
	st := Strobe(c, 2, 30*time.Second, 300*time.Millisecond)
	if err := st.Inject(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(ClockSettle)
	seen := map[bool]int{}
	for i := 0; i < 20; i++ {
		d := serverSkew(t, c, 2)
		seen[d > 15*time.Second]++
		time.Sleep(70 * time.Millisecond)
	}
	t.Logf("%s: %d reads ahead, %d not", st.Name(), seen[true], seen[false])
	if seen[true] == 0 || seen[false] == 0 {
		t.Fatalf("strobe did not flap: %v", seen)
	}
	if err := st.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(ClockSettle)
	if d := serverSkew(t, c, 2); !near(d, 0) {
		t.Fatalf("n2 still skewed by %v after heal", d)
	}
}

func TestSlowNode(t *testing.T) {
	c := attach(t)
	ctx := context.Background()
	node, _ := c.Node(3)
	s3 := session(t, c, 3, gocql.One)
	sl, err := NewSlow(c, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := sl.Inject(ctx); err != nil {
		t.Fatal(err)
	}
	before := throttled(t, node.CPUGroup)
	for i := 0; i < 40; i++ {
		_ = write(s3, fmt.Sprintf("slow-%d", i))
	}
	time.Sleep(2 * time.Second)
	after := throttled(t, node.CPUGroup)
	t.Logf("%s: throttled periods %d -> %d", sl.Name(), before, after)
	if after <= before {
		t.Fatal("no CPU throttling under a 5% quota")
	}
	if err := sl.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	q, _ := os.ReadFile(filepath.Join(node.CPUGroup, "cpu.cfs_quota_us"))
	if q2, err := os.ReadFile(filepath.Join(node.CPUGroup, "cpu.max")); err == nil {
		q = q2
	}
	if s := strings.TrimSpace(string(q)); s != "-1" && !strings.HasPrefix(s, "max") {
		t.Fatalf("quota after heal: %q", s)
	}
}

func throttled(t *testing.T, group string) int {
	b, err := os.ReadFile(filepath.Join(group, "cpu.stat"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "nr_throttled" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatalf("no nr_throttled in %s/cpu.stat", group)
	return 0
}

func TestKillRestartNode(t *testing.T) {
	c := attach(t)
	ctx := context.Background()
	all := session(t, c, 1, gocql.All)
	eventually(t, 30*time.Second, "ALL write before the fault", func() error { return write(all, "k0") })
	k := NewKillNode(c, 3)
	if err := k.Inject(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Running(3) {
		t.Fatal("n3 still runs after kill")
	}
	if err := k.Inject(ctx); err != nil { // idempotent
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "ALL write fails with n3 down", func() error {
		if write(all, "k1") == nil {
			return fmt.Errorf("ALL write succeeded with n3 killed")
		}
		return nil
	})
	t0 := time.Now()
	if err := k.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("n3 restarted in %v", time.Since(t0).Round(time.Second))
	node, _ := c.Node(3)
	pid, _ := c.PID(3)
	cg, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if !strings.Contains(string(cg), strings.TrimPrefix(node.CGroup2, "/sys/fs/cgroup/unified")) {
		t.Fatalf("restarted n3 not in its cgroup: %s", cg)
	}
	eventually(t, 60*time.Second, "ALL write after restart", func() error { return write(all, "k2") })
}
