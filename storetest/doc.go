// Package storetest is the conformance suite every lockstep.Store must pass:
// the Cassandra cell semantics of the root package's storage contract
// (last write wins by timestamp, the tie-breaks of Cells.resolveRegular,
// tombstones, TTLs, bytewise column order, slices), checked through the
// Store interface only.
//
// It runs against package model in this package's tests and against a real
// Cassandra from package cassandra under the integration build tag. So it
// works on a shared remote store: each case writes to a partition of its own
// (named after the test plus a random suffix), never assumes an empty table,
// and keeps TTLs between 1 and 3 seconds. It imports only the root package
// and the standard library.
package storetest
