// Package cassandraapache is lockstep's Store on Apache Cassandra through the
// Apache Cassandra Go driver, github.com/apache/cassandra-gocql-driver/v2
// (the maintained line of gocql), for services that use that driver.
// Package cassandra is the same store on github.com/gocql/gocql.
//
// This package is a module of its own, github.com/lockstep-go/lockstep/cassandraapache,
// so a service on one driver never compiles or downloads the other: this
// module requires the v2 driver and not gocql, the lockstep module requires
// gocql and not the v2 driver, and each module's deps tests check it. (The
// lockstep module's go.mod still names gocql, so `go list -m all` here lists
// it; no package of it is built, and `go mod why -m` says none is needed.)
//
// Both stores are thin adapters on one driver-neutral implementation,
// lockstep's cassandra/cqlstore: the same statements, the same refusal of bad
// input before anything is sent, the same decoding of cells, the same
// accepted consistency pairs and the same fenced-commit loop. So package
// cassandra's documentation of the mapping of the Store contract to CQL, of
// consistency and of FenceStore holds here word for word; only the driver
// types differ (gocql.Consistency of this driver in WithConsistency and
// WithSerialConsistency).
//
// # Errors
//
// A write or delete that may have been applied returns an error wrapping
// both lockstep.ErrUnknownOutcome and the driver's error: a coordinator
// write timeout or write failure (CAS and CDC included), no response within
// the session's timeout, a connection lost or timed out while the request
// was in flight, the caller's ctx ending after the request was handed to the
// driver, a server error, and any error not known to mean "not applied". An
// unavailable, overloaded or bootstrapping coordinator, a request error
// (syntax, invalid, unauthorized...), no hosts, a closed session, no free
// stream and a value that does not marshal mean the write was not applied:
// they are plain failures. Read errors are always plain failures. Errors
// from ctx keep satisfying errors.Is(err, ctx.Err()), and errors.As finds
// the driver's typed errors.
//
// # Schema
//
// The tables are package schema's. Its Apply takes a gocql session and
// importing it would link gocql, so with this driver create them with
// `lockctl schema apply` (a separate binary), or run the statements
// `lockctl schema print` prints through the v2 session.
//
// A Store and a FenceStore are safe for concurrent use; neither owns the
// session.
package cassandraapache
