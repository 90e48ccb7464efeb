// Package lockstep is the shared vocabulary of a distributed lock library for
// Apache Cassandra that lets a fleet migrate live from a legacy lock algorithm
// to a fair queue algorithm without an instant where two processes hold the
// same lock.
//
// This package holds only what every other package speaks: the [Locker] and
// [Lock] contracts, the [Mode] a lock is taken in, the [Access] an
// acquisition asks of an id with the lock manager's vocabulary ([Request],
// [GroupLocker], [Unit]), the sentinel errors, the
// [Store] interface and its [Cell], the [Clock], and the [Observer] hook. It
// imports no package of this module; the algorithms (shadowlock, queuelock,
// combined), the migration layer and the backends (cassandra, model) depend on
// it and never on each other's internals.
//
// # Storage contract
//
// A [Store] is a table of partitions ("rows") of cells ordered bytewise by
// column name. A cell carries a value, a write timestamp in microseconds and an
// optional TTL. Concurrent writes to one cell resolve as Cassandra resolves
// them (last write wins by timestamp; on a tie a tombstone beats an expiring
// cell, which beats a live one; then the later local deletion time; then the
// larger value). Deleting leaves a tombstone that later writes with a lower or
// equal timestamp cannot overwrite. With QUORUM reads and writes, a read that
// starts after a write completed observes it: that is the only fact the
// algorithms' safety arguments (seed 000, lemma 1) need.
//
// Every algorithm in this module obeys three rules on top of that contract:
// each cell is written and deleted only by the acquisition that owns it; write
// timestamps are strictly increasing per process, so a rewrite after a delete
// beats its own tombstone; and every lock cell carries a TTL, so a crashed
// holder's cells vanish after at most that long.
package lockstep
