package clustertest

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/gocql/gocql"
)

// Topology is the cluster's nodes by data centre, as the coordinator of the
// reading session sees them.
type Topology struct {
	// Hosts maps each data centre to the addresses of its nodes
	// (rpc_address; system.local's broadcast address for the coordinator),
	// sorted.
	Hosts map[string][]string
}

// Read returns the topology of the cluster session is connected to. Each
// query may go to another coordinator, and system.peers lists every node
// but the one that answers, so it reads system.local and system.peers a few
// times and keeps each address once (with 2 or more nodes, two answers from
// different coordinators already list them all).
func Read(ctx context.Context, session *gocql.Session) (Topology, error) {
	dcOf := map[string]string{}
	var dc string
	var addr net.IP
	for range readRounds {
		if err := session.Query("SELECT data_center, rpc_address FROM system.local").WithContext(ctx).Scan(&dc, &addr); err != nil {
			return Topology{}, fmt.Errorf("clustertest: reading system.local: %w", err)
		}
		dcOf[addr.String()] = dc
		iter := session.Query("SELECT data_center, rpc_address FROM system.peers").WithContext(ctx).Iter()
		for iter.Scan(&dc, &addr) {
			dcOf[addr.String()] = dc
		}
		if err := iter.Close(); err != nil {
			return Topology{}, fmt.Errorf("clustertest: reading system.peers: %w", err)
		}
	}
	t := Topology{Hosts: map[string][]string{}}
	for a, dc := range dcOf {
		t.Hosts[dc] = append(t.Hosts[dc], a)
	}
	for _, h := range t.Hosts {
		slices.Sort(h)
	}
	return t, nil
}

// readRounds is how many times Read reads both tables.
const readRounds = 4

// DCs returns the data centres, sorted.
func (t Topology) DCs() []string { return slices.Sorted(maps.Keys(t.Hosts)) }

// Nodes returns the number of nodes in every data centre.
func (t Topology) Nodes() int {
	n := 0
	for _, h := range t.Hosts {
		n += len(h)
	}
	return n
}

// MultiDC reports whether the cluster has more than one data centre.
func (t Topology) MultiDC() bool { return len(t.Hosts) > 1 }

// Replication returns the replication map of a keyspace that has at most
// maxPerDC replicas in each data centre and no more than it has nodes:
// SimpleStrategy with replication_factor min(nodes, maxPerDC) on one data
// centre, NetworkTopologyStrategy with min(nodes in dc, maxPerDC) for each dc
// on several.
func (t Topology) Replication(maxPerDC int) map[string]string {
	if !t.MultiDC() {
		return map[string]string{"class": "SimpleStrategy", "replication_factor": strconv.Itoa(min(t.Nodes(), maxPerDC))}
	}
	m := map[string]string{"class": "NetworkTopologyStrategy"}
	for dc, h := range t.Hosts {
		m[dc] = strconv.Itoa(min(len(h), maxPerDC))
	}
	return m
}

// Flag renders a replication map as lockctl's --replication takes it
// (class first, then the other options sorted): for example
// "class=NetworkTopologyStrategy,dc1=2,dc2=1".
func Flag(repl map[string]string) string {
	parts := []string{"class=" + repl["class"]}
	for _, k := range slices.Sorted(maps.Keys(repl)) {
		if k != "class" {
			parts = append(parts, k+"="+repl[k])
		}
	}
	return strings.Join(parts, ",")
}

// Cluster returns a cluster configuration whose sessions send every request
// to a node of data centre dc: its contact points are dc's nodes, its host
// policy is token-aware over dc's nodes, and a host filter drops every
// other data centre's nodes, so no request fails over to a remote one (as
// a DC-local store needs: WithLocalDC, WithFenceLocalDC).
func (t Topology) Cluster(dc string) *gocql.ClusterConfig {
	c := gocql.NewCluster(t.Hosts[dc]...)
	c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(dc))
	c.HostFilter = gocql.DataCentreHostFilter(dc)
	return c
}
