// Package cluster drives the robustness suite's own 3-node Apache Cassandra
// cluster through scripts/cassandra: its own IP offset and state directory
// (so it never touches another cluster on the machine), every node's JVM in
// a cgroup of its own (LOCKSTEP_CASSANDRA_CGROUP, for nftables partitions and
// CPU quotas) and reading wall time through the OffsetClock plug-in
// (LOCKSTEP_CASSANDRA_SKEW_CLOCK, for server clock skew).
//
// A [Cluster] knows, per node, its address, its JVM's pid, its cgroups and
// its clock-offset file; package nemesis uses those to inject faults. Up
// starts a fresh cluster, Down stops every node and removes the cgroups;
// Kill and Start crash and restart one node; Exec runs CQL on one node for
// the tests that show a nemesis took effect.
//
// With Config.DCs 2 the cluster is two data centres (scripts/cassandra up
// --dcs 2: dc1 = nodes 1 and 2, dc2 = node 3); Replication gives its
// keyspaces' NetworkTopologyStrategy map, and each data centre has a client
// cgroup (ClientGroup) the runner starts that data centre's workers in, so
// that a DC partition can cut them from the other data centre's nodes.
package cluster
