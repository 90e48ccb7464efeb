// Package cassandra is the production lockstep.Store, on Apache Cassandra
// through the gocql driver.
//
// It sits at the edge of the dependency graph: it implements the root
// package's Store interface and is the only package besides cmd/ that imports
// gocql; the algorithms (shadowlock, queuelock, combined) never see the driver.
// Package schema creates the tables it reads and writes; they all share one
// generic cell shape (row_key text, column_name text, value blob, partition
// row_key, clustering column_name ascending), so one set of statement
// templates serves every table.
//
// FenceStore, beside Store, is the storage of package fence: values guarded
// by fencing tokens, one row per key of a table of their own shape (row_key,
// fence_token, value), written only by lightweight transactions at SERIAL
// (or LOCAL_SERIAL) so a token is compared and the value written in one
// atomic step; see FenceStore.CommitIfNewer.
//
// # Connecting
//
// ConnectOptions are the connection settings the commands share (lockctl,
// lockd): hosts, keyspace, consistency, local DC routing, login and
// client-to-node TLS, each read from its LOCKSTEP_* variable by FromEnv
// unless a flag gave it. Validate refuses what cannot work before anything
// connects, ClusterConfig builds the driver's configuration, NewStore the
// store on the session. Their errors name each setting by the flag the
// commands give it ("--tls-ca").
//
// # Mapping of the Store contract to CQL
//
// Put writes each cell with
//
//	UPDATE ks.table USING TIMESTAMP ? AND TTL ? SET value = ? WHERE row_key = ? AND column_name = ?
//
// UPDATE rather than INSERT, so no row marker is written and the CQL row is
// alive exactly while its one value cell is: the single-cell semantics of the
// model (package model) and of seed 000 listing 1. Delete writes a row
// tombstone with an explicit timestamp; on reads it shadows the value cell
// exactly as a cell tombstone would, tie included (a tombstone wins an equal
// timestamp). Several cells of one call go in one UNLOGGED batch: all its
// statements target one partition, so Cassandra applies it as one mutation,
// atomically and in isolation, in one request, with no batch log.
//
// Read selects column_name, value, WRITETIME(value) and TTL(value) of one
// partition between the slice bounds, paging through the result as needed.
//
// # Consistency
//
// Reads and writes use QUORUM by default: with R + W > RF a read that starts
// after a write completed sees it (blocking read repair keeps it seen), the
// only storage fact the safety arguments need. See WithConsistency for the
// other accepted levels and what LOCAL_QUORUM does not guarantee.
//
// # Scopes
//
// A Store is global (one holder of a lock across every data centre) unless
// built WithLocalDC (one holder per data centre, at LOCAL_QUORUM). New
// refuses levels that cannot keep the scope — a global store at
// LOCAL_QUORUM writes — with an error that says what to use; Store.Scope
// reports it (lockstep.Scoped). A DC-local store also refuses every answer
// whose coordinator is in another data centre (its LOCAL_QUORUM is then that
// data centre's): a read fails, a write fails as an unknown outcome, both
// wrapping lockstep.ErrRefused, so a client whose driver failed over loses
// its locks' availability, never their exclusion. The repository's
// docs/multi-dc.md gives the argument of each pair, the scope of every part
// and the failure table.
//
// # Errors
//
// Driver errors are classified once, in cassandra/cqlstore, from the list of
// gocql's errors in errors.go. A write or delete that may have
// been applied (a coordinator write timeout or write failure, no response in
// time, the connection lost mid-request, the caller's ctx ending while the
// request was in flight, or any error not known to mean "not applied")
// returns an error wrapping both lockstep.ErrUnknownOutcome and the driver's
// error. An unavailable coordinator, an overloaded or bootstrapping node and
// request validation errors mean the write was not applied and are returned
// wrapped as plain failures. Read errors are always plain failures. Errors
// from ctx keep satisfying errors.Is(err, ctx.Err()).
//
// # Two drivers, one implementation
//
// Package cassandraapache, a module of its own, is the same store on the Apache
// Cassandra Go driver (github.com/apache/cassandra-gocql-driver/v2). Both
// are thin adapters on cassandra/cqlstore, which holds the statements, the
// validation, the decoding of cells, the classification of outcomes, the
// consistency rules and the fenced-commit loop; each adapter only sends the
// statements through its driver and lists its driver's errors. So what this
// documentation says of the mapping to CQL, consistency and errors holds for
// both.
//
// A Store is safe for concurrent use.
package cassandra
