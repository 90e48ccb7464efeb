package model

import (
	"testing"

	"github.com/lockstep-go/lockstep/clock"
)

func TestCluster_LevelsCountReplicasPerDC(t *testing.T) {
	c := NewCluster(&clock.Local{}, ClusterConfig{Replicas: 3, DCs: []int{0, 0, 1}})
	set := func(is ...int) []bool {
		b := make([]bool, 3)
		for _, i := range is {
			b[i] = true
		}
		return b
	}
	cases := []struct {
		l    Level
		dc   int
		set  []bool
		want bool
	}{
		{Quorum, 1, set(0, 1), true}, // a quorum all in dc 0: why QUORUM writes with LOCAL_QUORUM reads are refused
		{LocalQuorum, 0, set(0, 1), true},
		{LocalQuorum, 0, set(0, 2), false},
		{LocalQuorum, 1, set(2), true},
		{EachQuorum, 0, set(0, 1), false},
		{EachQuorum, 0, set(0, 1, 2), true},
		{All, 0, set(0, 1), false},
		{Count, 0, set(0, 2), true}, // W = 2 replicas anywhere
	}
	for _, tc := range cases {
		if got := c.Enough(tc.l, 2, tc.dc, tc.set); got != tc.want {
			t.Errorf("%v for dc %d with %v: %v, want %v", tc.l, tc.dc, tc.set, got, tc.want)
		}
	}
}

func TestCluster_DCPartitionHoldsMessagesUntilHealed(t *testing.T) {
	c := NewCluster(&clock.Local{}, ClusterConfig{Replicas: 3, DCs: []int{0, 0, 1}})
	c.PartitionDCs(0, 1)
	if c.Reachable(0, 2) || c.Reachable(2, 1) || !c.Reachable(0, 1) || !c.Reachable(2, 2) {
		t.Fatal("partition cut the wrong links")
	}
	cells, err := c.Prepare(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Write("t", "r", cells, []int{0, 1})
	m.Coord = 0
	c.DeliverAll()
	if len(c.Pending()) != 1 || m.Applied[2] {
		t.Fatalf("a message crossed the partition: pending %d, applied %v", len(c.Pending()), m.Applied)
	}
	if !c.HealDCs() || c.Partitioned() {
		t.Fatal("HealDCs did not report the cut")
	}
	c.DeliverAll()
	if len(c.Pending()) != 0 || !m.Applied[2] {
		t.Fatalf("after the heal: pending %d, applied %v", len(c.Pending()), m.Applied)
	}
}
