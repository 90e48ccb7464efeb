package model

import (
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
)

func newTestCluster(cfg ClusterConfig) (*Cluster, *ManualClock) {
	c := NewManualClock(0)
	return NewCluster(c, cfg), c
}

func clusterPut(t *testing.T, cl *Cluster, coord int, now []int, cells ...lockstep.Cell) *Mutation {
	t.Helper()
	stored, err := cl.Prepare(coord, cells)
	if err != nil {
		t.Fatal(err)
	}
	return cl.Write("t", "r", stored, now)
}

func clusterColumns(t *testing.T, cl *Cluster, replicas ...int) []string {
	t.Helper()
	cells, err := cl.Read(0, replicas, "t", "r", lockstep.Slice{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cells {
		out = append(out, c.Column)
	}
	return out
}

func TestCluster_QuorumReadSeesAcknowledgedWrite(t *testing.T) {
	cl, _ := newTestCluster(ClusterConfig{})
	m := clusterPut(t, cl, 0, []int{0, 1}, lockstep.Cell{Column: "a", Timestamp: 1})
	if m.Acks() != 2 || len(cl.Pending()) != 1 {
		t.Fatalf("acks %d, pending %d; want 2 and 1", m.Acks(), len(cl.Pending()))
	}
	for _, set := range [][]int{{0, 1}, {0, 2}, {1, 2}} {
		if got := clusterColumns(t, cl, set...); len(got) != 1 {
			t.Fatalf("read %v = %v, want [a]", set, got)
		}
	}
}

func TestCluster_ReadRepairMakesReadsMonotonic(t *testing.T) {
	for _, repair := range []bool{true, false} {
		cl, _ := newTestCluster(ClusterConfig{NoReadRepair: !repair})
		clusterPut(t, cl, 0, []int{0}, lockstep.Cell{Column: "a", Timestamp: 1}) // only replica 0 has it
		cl.Drop(0)
		cl.Drop(0)
		if got := clusterColumns(t, cl, 0, 1); len(got) != 1 {
			t.Fatalf("read {0,1} = %v, want [a]", got)
		}
		got := clusterColumns(t, cl, 1, 2)
		if repair && len(got) != 1 {
			t.Fatalf("with read repair, a later read {1,2} = %v, want [a]", got)
		}
		if !repair && len(got) != 0 {
			t.Fatalf("without read repair, a later read {1,2} = %v, want none", got)
		}
	}
}

func TestCluster_TTLFromCoordinatorJudgedByReader(t *testing.T) {
	cl, clock := newTestCluster(ClusterConfig{})
	cl.SetReplicaSkew(1, 2*time.Second) // coordinator 1 runs ahead
	clusterPut(t, cl, 1, []int{0, 1, 2}, lockstep.Cell{Column: "a", Timestamp: 1, TTL: 3 * time.Second})
	clock.Advance(time.Second)
	if got := clusterColumns(t, cl, 0, 1); len(got) != 1 {
		t.Fatalf("after 1s: %v, want [a]", got)
	}
	clock.Advance(4 * time.Second) // coordinator 0's clock: 5 s after the write, expiry at 2+3
	if got := clusterColumns(t, cl, 0, 1); len(got) != 0 {
		t.Fatalf("after 5s: %v, want none (expired by the coordinator's TTL)", got)
	}
}

func TestCluster_DeliveredTombstoneWinsOverOlderCell(t *testing.T) {
	cl, _ := newTestCluster(ClusterConfig{})
	clusterPut(t, cl, 0, []int{0, 1, 2}, lockstep.Cell{Column: "a", Timestamp: 5})
	cl.Write("t", "r", cl.PrepareDelete(0, 5, []string{"a"}), []int{2})
	if got := clusterColumns(t, cl, 0, 1); len(got) != 1 {
		t.Fatalf("before delivery: %v, want [a]", got)
	}
	cl.DeliverAll()
	if got := clusterColumns(t, cl, 0, 1); len(got) != 0 {
		t.Fatalf("after delivery: %v, want none (tombstone wins the timestamp tie)", got)
	}
}
