// Package model is an in-memory stand-in for Apache Cassandra with the exact
// cell semantics the lock algorithms rely on. It is simulation and test
// support: the property tests, the examples, every package's unit tests and
// the embedded backend of cmd/lockbench run on it. Production code never
// imports it. It depends only on the root package lockstep.
//
// # What it holds
//
//   - [Store]: one replica. It implements lockstep.Store (Put, Delete, Read)
//     and a replica-level API for a simulated quorum cluster: [Store.Apply]
//     merges [StoredCell]s computed by a coordinator, [Store.Scan] returns
//     tombstones too (for read repair), [Reconcile] merges two versions of a
//     cell. It judges TTLs and purges tombstones by its own lockstep.Clock.
//   - [ManualClock]: virtual time that moves only when a test says so, with
//     sleepers a test can wait for ([ManualClock.BlockUntil]).
//   - [Faulty]: wraps any lockstep.Store and injects failures before or after
//     the operation (the latter wrapping lockstep.ErrUnknownOutcome) and
//     latency, reproducibly from a seeded math/rand/v2 generator. Injected
//     errors wrap [ErrInjected].
//
// # Cassandra behaviour modelled
//
// The rules follow Cassandra 4.x/5.0 (src/java/org/apache/cassandra/db/rows):
//
//   - Cells of a partition are ordered bytewise (unsigned) by column name, as
//     a text or blob clustering column is.
//   - Conflict resolution is Cells.reconcile → Cells.resolveRegular, see
//     [Reconcile]: higher timestamp; on a tie an expiring cell or tombstone
//     beats a live cell (CASSANDRA-14592), a tombstone beats an expiring cell,
//     then the larger localDeletionTime, then the larger value by unsigned
//     byte comparison. An expired cell still reconciles as the expiring cell
//     it is (so it beats a live cell of equal timestamp and loses to a
//     tombstone), until compaction turns it into a tombstone.
//   - An expiring cell written in second now with TTL t has localDeletionTime
//     now+t and is live while the replica's second is < now+t
//     (AbstractCell.isLive); a read reports its TTL as localDeletionTime - now.
//     A tombstone's localDeletionTime is the second it was written in. The
//     second is the floor of the replica clock's microseconds / 1e6.
//   - TTLs must be whole seconds in [1, 630720000] (Attributes.MAX_TTL).
//   - Compaction (AbstractCell.purge) drops a dead cell once
//     localDeletionTime < now - gc_grace_seconds and otherwise turns an
//     expired cell into a tombstone with localDeletionTime - ttl (its creation
//     second), checking that for purging again (5.0). It runs lazily on each
//     access to a partition, at most once per replica second, or on
//     [Store.Compact].
//   - Reads count the tombstones and expired cells they step over inside
//     their slice before reaching their limit of live cells, as Cassandra's
//     tombstone_warn_threshold accounting does ([Stats]).
//   - A Put or Delete of several cells of one partition applies atomically
//     and in isolation, as one partition's mutation does.
//
// # Not modelled
//
// Replication, consistency levels, hinted handoff and read repair (a
// simulated cluster builds them from several Stores); row, range and
// partition tombstones (only cell tombstones exist); counters, collections,
// static columns and LWT; the tombstone_failure_threshold abort; the
// 2038/2106 expiration overflow policy (ExpirationDateOverflowHandling);
// memtables, SSTables and the non-determinism of when compaction runs, and
// purge-ability limits from overlapping SSTables or repair state;
// Cassandra's order-dependent pick between cells equal in every compared
// field (Reconcile breaks that tie deterministically).
//
// # Simulated cluster
//
// [Cluster] builds replication from several Stores: N replicas (default 3),
// each with its own clock skew; writes prepared by a coordinator (which
// computes expiring cells' deletion time by its own clock), applied at once
// by the replicas the caller picks and delivered to the others as [Message]s
// the caller delivers later or drops (a hint that never arrives); reads that
// merge the answers of R replicas by [Reconcile] and, unless
// ClusterConfig.NoReadRepair, repair the replicas they asked before
// returning. Package model/sim runs unmodified lock algorithms on it under a
// deterministic, test-driven scheduler.
package model
