// Package clustertest is test support for the integration suites: it reads
// the data centres of the cluster a session is connected to (system.local
// and system.peers) and renders the replication map that fits it, so every
// suite's keyspaces are SimpleStrategy on a single data centre and
// NetworkTopologyStrategy, with a factor per data centre, on several
// (scripts/cassandra up --nodes 3 --dcs 2: dc1 × 2, dc2 × 1). There is no
// setting to keep in step with the cluster: the layout is read from the
// cluster itself.
//
// With NetworkTopologyStrategy each data centre has replicas of its own, so
// LOCAL_QUORUM and LOCAL_SERIAL (DC-local stores, WithFenceLocalDC) mean what
// they mean in production; with SimpleStrategy on two data centres they do
// not (a data centre may hold no replica of a key).
//
// It sits beside package cassandra (the only packages that may import the
// driver) and is imported only by tests: the library's integration tests in
// cassandra/ and schema/, and lockctl's in cmd/lockctl. The v2 driver's
// suite (module cassandraapache) reads the layout with its own driver and passes
// it to schema/internal/cqlprint (-replication).
package clustertest
