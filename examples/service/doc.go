// Command service is a demo replica of a service that takes its locks
// through migration.Locker, for walking the migration runbook
// (docs/migrating.md) before doing it in production.
//
// With no -hosts it runs on the embedded Cassandra model: -replicas
// replicas (default 3) in this one process, and it plays the operator too,
// moving the fleet phase legacy -> combined -> new with a Controller while
// the replicas increment a shared counter under one lock; it prints what
// each step changed and exits non-zero if the counter is not exact or two
// replicas ever overlapped.
//
// With -hosts it is one replica (or -replicas of them) on a real cluster,
// following the fleet phase (migration.PhaseFlag), until interrupted; the
// operator moves the phase with lockctl from another terminal. Every -report
// it prints the locks it took by mode, refusals and lost leases.
//
//	go run ./examples/service                                   # the embedded walk-through
//	go run ./examples/service -hosts 127.0.0.1 -process billing-1  # one replica on a node
package main
