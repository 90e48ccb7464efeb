//go:build integration

package nemesis

// Clock skew, CPU quota and crash/restart on the real cluster (see
// nemesis_integration_test.go for how to start it).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep/robustness/cluster"
)

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
