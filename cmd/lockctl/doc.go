// Command lockctl is the operator's tool for lockstep on Cassandra: it
// creates the schema, shows what the store holds for a lock, shows the fleet
// census and the migration phase, moves the phase, and, as a last resort,
// deletes a dead owner's cells.
//
// Usage:
//
//	lockctl [global flags] <command> [flags] [arguments]
//
//	schema apply [--replication K=V,...]  create the tables (and the keyspace, given a replication)
//	schema print [--replication K=V,...]  print the CQL that schema apply runs; needs no cluster
//	inspect <id>                          queue, owner and legacy cells of a lock: owners, ages, TTLs
//	fleet                                 the census: live processes, their modes and held locks
//	phase get                             the fleet's migration phase
//	phase set [--drain D] <mode>          move the phase one step towards legacy, combined or new
//	release --force [--yes] <id>          delete every cell of a lock (break-glass)
//
// Global flags, accepted before or after the command:
//
//	--hosts        comma-separated contact points, host or host:port
//	               (default $CASSANDRA_HOSTS, else 127.0.0.1)
//	--keyspace     the lock keyspace (default "locks")
//	--consistency  read and write consistency (default QUORUM; see cassandra.WithConsistency)
//	--timeout      connect and per-request timeout (default 10s)
//	--table K=N    use table N for the table whose default name is K, e.g.
//	               --table legacy_main=old_locks (repeatable; as schema.WithTables)
//
// A lock id that starts with "-" goes after "--": lockctl inspect -- -odd-id.
//
// lockctl exits 0 on success, 1 when the command failed (Cassandra cannot be
// reached, a request failed, a phase move was refused, a release was not
// confirmed) and 2 for bad usage; the error is one line on stderr.
//
// # release --force
//
// The lock algorithms never delete another owner's cell; release --force
// does, for an owner known to be dead whose cells would otherwise block the
// lock until their TTL expires. It lists the cells it is about to delete and
// asks for confirmation on stdin (unless --yes), then deletes each cell with
// a tombstone carrying exactly the cell's own write timestamp, logging every
// deletion on stderr. A tombstone wins a timestamp tie, so this removes the
// write that was read and nothing newer: if the owner is in fact alive, its
// next renewal writes the cell back and inspect shows it again. That is
// evidence, not protection — between the deletion and that renewal another
// process may acquire the lock while the old owner still works. Never use it
// on an owner that may be alive.
//
// lockctl sits at the top of the dependency graph: it composes package
// cassandra (the Store), schema, migration (census and phase) and the
// storage formats of queuelock and shadowlock. It is one of the few packages
// allowed to import gocql.
package main
