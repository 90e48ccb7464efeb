//go:build integration

package nemesis

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// The DC partition on a cluster of two data centres, started as the file
// header of nemesis_integration_test.go says with --dcs 2 added: a QUORUM
// write through dc2's node fails while dc1's nodes still make a quorum, a
// process in dc2's client cgroup cannot reach dc1's nodes but reaches its
// own, and Heal undoes both. On one data centre it skips.
func TestDCPartition_CutsTheDataCentresAndTheirClients(t *testing.T) {
	c := attach(t)
	if len(c.DCs()) != 2 {
		t.Skipf("needs a cluster of two data centres (scripts/cassandra up --nodes 3 --dcs 2); this one has %v", c.DCs())
	}
	if err := c.MakeClientGroups(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.RemoveClientGroups(); err != nil {
			t.Error(err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := NewDCPartition(c)
	if err != nil {
		t.Fatal(err)
	}
	n1, n3 := session(t, c, 1, gocql.Quorum), session(t, c, 3, gocql.Quorum)
	write := func(s interface {
		Query(string, ...any) *gocql.Query
	}, v int) error {
		return s.Query(`UPDATE `+ks+`.kv SET v = ? WHERE k = 'dc'`, v).WithContext(ctx).Exec()
	}
	dc1, dc2 := c.HostsIn("dc1")[0], c.HostsIn("dc2")[0]
	if err := p.Inject(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := write(n3, 1); err == nil {
		t.Error("a QUORUM write through dc2's node succeeded while the data centres were apart")
	}
	if err := write(n1, 2); err != nil {
		t.Errorf("a QUORUM write through dc1's node failed while dc1 holds a quorum: %v", err)
	}
	if err := dialFrom(t, c, "dc2", dc1); err == nil {
		t.Errorf("a client of dc2 reached %s (dc1) across the partition", dc1)
	}
	if err := dialFrom(t, c, "dc2", dc2); err != nil {
		t.Errorf("a client of dc2 could not reach its own node %s: %v", dc2, err)
	}
	if err := p.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	if err := dialFrom(t, c, "dc2", dc1); err != nil {
		t.Errorf("after the heal a client of dc2 could not reach %s: %v", dc1, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for err := write(n3, 3); err != nil; err = write(n3, 3) {
		if time.Now().After(deadline) {
			t.Fatalf("a QUORUM write through dc2's node still fails 30 s after the heal: %v", err)
		}
		time.Sleep(time.Second)
	}
}

// dialFrom opens a TCP connection to host's CQL port from a process born in
// dc's client cgroup (as the runner starts workers), within 3 s.
func dialFrom(t *testing.T, c interface {
	OpenClientGroup(string) (*os.File, error)
}, dc, host string) error {
	t.Helper()
	g, err := c.OpenClientGroup(dc)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	cmd := exec.Command("timeout", "3", "bash", "-c", "exec 3<>/dev/tcp/"+host+"/9042")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(g.Fd())}
	return cmd.Run()
}
