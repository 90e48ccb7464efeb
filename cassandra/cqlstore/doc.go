// Package cqlstore is the driver-neutral half of lockstep's Cassandra stores:
// everything about storing cells and fenced values in CQL that does not
// depend on which Go driver sends the requests.
//
// Two stores sit on it: package cassandra, on github.com/gocql/gocql, and
// package cassandraapache (a module of its own), on
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
// # Contract for a driver adapter
//
// The package is public so that a store on another Go driver, in a module
// of its own, can reuse it rather than copy it; applications use package
// cassandra or cassandraapache and never need it. An adapter must:
//
//   - implement Driver: send each statement it is given, unchanged, at the
//     consistency level the adapter was built with, marked idempotent, with
//     several statements of one call in one UNLOGGED batch of one partition,
//     and return the driver's error as it is, so that the classifier it
//     passes in Errors sees the driver's own types;
//   - implement FenceDriver likewise for the fenced tables, the conditional
//     statements at the serial level and commit level NewFence gives it;
//   - list its driver's errors in Errors: those that may leave a write
//     applied as maybe-applied, those that mean it was not applied as
//     not-applied (Classify); an error in neither list counts as maybe
//     applied, which is always safe;
//   - convert its driver's consistency levels to Level (both drivers number
//     them by the protocol's codes), so ValidateScope and ValidateSerialScope
//     refuse the same pairs for every driver.
//
// Everything else — validating the input before anything is sent, the
// statements, decoding rows into cells, wrapping lockstep.ErrUnknownOutcome
// and lockstep.ErrRefused — is done here, so a Store built on it keeps the
// lockstep.Store contract whatever the driver. The API follows the library's
// version: it changes only with an entry in CHANGELOG.md.
//
// It imports the root package and the standard library only, never a
// driver: the algorithms stay free of drivers, and a service that uses one
// driver's store never compiles the other driver (deps_test.go of each
// module checks it). See package cassandra's documentation for the mapping
// of the Store contract to CQL and the consistency argument, which hold for
// both stores alike.
package cqlstore
