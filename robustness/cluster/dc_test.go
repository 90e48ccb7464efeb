package cluster

import (
	"slices"
	"strings"
	"testing"
)

// Two data centres lay the nodes out as scripts/cassandra up --dcs 2 does,
// with a NetworkTopologyStrategy keyspace; a third is refused.
func TestDCs_LayoutAndReplication(t *testing.T) {
	one, err := New(Config{IPOffset: 100, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.DCs(), []string{"dc1"}) || !strings.Contains(one.Replication(), "SimpleStrategy") {
		t.Fatalf("one data centre: %v, %s", one.DCs(), one.Replication())
	}
	two, err := New(Config{IPOffset: 100, Dir: t.TempDir(), DCs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(two.NodesIn("dc1"), []int{1, 2}) || !slices.Equal(two.NodesIn("dc2"), []int{3}) ||
		!slices.Equal(two.HostsIn("dc2"), []string{"127.0.0.103"}) {
		t.Fatalf("two data centres: dc1 %v, dc2 %v %v", two.NodesIn("dc1"), two.NodesIn("dc2"), two.HostsIn("dc2"))
	}
	if got := two.Replication(); got != "class=NetworkTopologyStrategy,dc1=2,dc2=1" {
		t.Fatalf("replication %q", got)
	}
	if _, err := New(Config{IPOffset: 100, Dir: t.TempDir(), DCs: 3}); err == nil || !strings.Contains(err.Error(), "give 1 or 2") {
		t.Fatalf("three data centres: %v", err)
	}
}
