// Package cqlstore is the driver-neutral half of lockstep's Cassandra stores:
// everything about storing cells and fenced values in CQL that does not
// depend on which Go driver sends the requests.
//
// Two stores sit on it: package cassandra, on github.com/gocql/gocql, and
// package cassandrav2 (a module of its own), on
// github.com/apache/cassandra-gocql-driver/v2. Each is a thin adapter that
// implements Driver (and FenceDriver) with its driver's session and hands
// its driver's error types to an Outcome classifier; this package holds the
// rest, once:
//
//   - the statement templates and their per-table cache (statements.go);
//   - Put, Delete and Read of the Store contract, the refusal of bad input
//     before anything is sent, and the decoding of result rows into cells
//     (store.go);
//   - the classification of a failed write into a definite failure or an
//     unknown outcome (outcome.go), with the protocol's error codes, which
//     both drivers share;
//   - the accepted consistency levels and pairs (consistency.go), on the
//     protocol's level codes, to which both drivers' Consistency types
//     convert;
//   - the compare-and-set loop of a fenced commit and the fenced load
//     (fence.go).
//
// It imports the root package and the standard library only, never a
// driver: the algorithms stay free of drivers, and a service that uses one
// driver's store never compiles the other driver (deps_test.go of each
// module checks it). See package cassandra's documentation for the mapping
// of the Store contract to CQL and the consistency argument, which hold for
// both stores alike.
package cqlstore
