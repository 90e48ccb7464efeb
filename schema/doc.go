// Package schema holds the CQL of every table lockstep uses and applies it to
// a cluster.
//
// The statements live in .cql files embedded in the binary; each file's
// header says which lock modes read and write the table and why its options
// (compaction, gc_grace_seconds, caching) are chosen for a lock workload:
// small hot partitions of short-lived TTL'd cells and their tombstones. Each
// table also carries a CQL comment option naming its modes, so an operator
// sees it in DESCRIBE TABLE.
//
// Every lock table shares one generic cell shape, the shape the root
// package's lockstep.Store interface speaks (table, partition row key, cells):
//
//	row_key text, column_name text, value blob,
//	PRIMARY KEY ((row_key), column_name) WITH CLUSTERING ORDER BY (column_name ASC)
//
// The one exception is fenced_resource, the table of values package fence
// guards with fencing tokens: one row per key, written only by lightweight
// transactions (cassandra.FenceStore):
//
//	row_key text PRIMARY KEY, fence_token bigint, value blob
//
// A text clustering column sorts by its UTF-8 bytes (Cassandra's UTF8Type
// compares in BYTE_ORDER), which is Go's string order, so the column order
// the algorithms reason about is the order Cassandra returns.
//
// Keyspace and table names are never concatenated from caller input: each is
// checked with lockstep.ValidateName and only then substituted into a fixed
// template; anything else is refused with an error wrapping
// lockstep.ErrInvalidConfig.
//
// Package schema depends on the root package and gocql; the algorithms never
// import it. Package cassandra is the Store that reads and writes these
// tables; cmd/lockctl prints and applies them.
package schema
