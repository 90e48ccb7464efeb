package nemesis

import (
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep/robustness/cluster"
)

// "all" has the DC partition only on two data centres; asking for it on
// one is refused, saying what to do.
func TestKindsFor_DCPartitionNeedsTwoDataCentres(t *testing.T) {
	one, err := cluster.New(cluster.Config{IPOffset: 60, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := KindsFor(1, "all")
	if err != nil || slices.Contains(ks, KindDCPartition) || len(ks) != len(AllKinds)-1+len(LockdKinds) {
		t.Fatalf("all on one data centre: %v, %v", ks, err)
	}
	if _, err := KindsFor(1, "isolate,dc-partition"); err == nil || !strings.Contains(err.Error(), "--dcs 2") {
		t.Fatalf("dc-partition on one data centre: %v", err)
	}
	if _, err := NewDCPartition(one); err == nil {
		t.Fatal("NewDCPartition on one data centre accepted")
	}
	ks, err = KindsFor(2, "all")
	if err != nil || !slices.Contains(ks, KindDCPartition) {
		t.Fatalf("all on two data centres: %v, %v", ks, err)
	}
}

// The DC partition cuts every storage link between n1, n2 (dc1) and n3
// (dc2) both ways, and each data centre's clients from the other's nodes.
func TestDCPartition_CutsNodesAndClients(t *testing.T) {
	c := testCluster(t)
	mount, err := cgroup2Mount()
	if err != nil || (mount != "/sys/fs/cgroup" && !strings.HasPrefix(mount, "/sys/fs/cgroup/")) {
		t.Skipf("cgroup2 at %q (%v): nft needs it at or below /sys/fs/cgroup", mount, err)
	}
	for i := range c.Nodes {
		c.Nodes[i].CGroup2 = mount + "/lockstep-robust60/node" + string(rune('1'+i))
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(mount, "/sys/fs/cgroup"), "/")
	if rel != "" {
		rel += "/"
	}
	p, err := NewDCPartition(c)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Name(), "dc-partition dc1(n1,n2)|dc2(n3)"; got != want {
		t.Errorf("name %q, want %q", got, want)
	}
	if KindOf(p) != KindDCPartition {
		t.Errorf("KindOf = %q", KindOf(p))
	}
	cuts := p.Cuts()
	for _, want := range []Cut{{1, 3}, {3, 1}, {2, 3}, {3, 2}} {
		if !slices.Contains(cuts, want) {
			t.Errorf("cuts %v lack %v", cuts, want)
		}
	}
	if slices.Contains(cuts, Cut{1, 2}) || len(cuts) != 4 {
		t.Errorf("cuts %v: want only the four links across the data centres", cuts)
	}
	rules, err := p.rules()
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(rules, "\n")
	for _, want := range []string{
		`socket cgroupv2 level 2 "` + rel + `lockstep-robust60/node3" ip daddr 127.0.0.61 tcp dport 7000 counter drop`,
		`socket cgroupv2 level 2 "` + rel + `lockstep-robust60-clients/dc1" ip daddr 127.0.0.63 tcp dport 9042 counter drop`,
		`socket cgroupv2 level 2 "` + rel + `lockstep-robust60-clients/dc2" ip daddr 127.0.0.61 tcp dport 9042 counter drop`,
		`socket cgroupv2 level 2 "` + rel + `lockstep-robust60-clients/dc2" ip daddr 127.0.0.62 tcp dport 9042 counter drop`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("rules lack %q:\n%s", want, joined)
		}
	}
	if len(rules) != 7 {
		t.Errorf("%d rules, want 4 node cuts and 3 client cuts:\n%s", len(rules), joined)
	}
}
