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
// Verify is the readiness check a service runs at startup, before its first
// lock: it reads system_schema and reports a missing keyspace, a missing
// table, a table of another layout, or a table option lockstep's argument
// depends on (default_time_to_live 0, gc_grace_seconds of at least 3 h),
// each with the lockctl command or the CQL that fixes it (check.go holds the
// comparison, verify.go the catalog reads). It lives here, beside the CQL it
// checks against, rather than on the Store: the Store speaks cells, not
// catalogs, and a service builds its Store from the same session it can hand
// to Verify. migration.Locker.Ready checks the rest through the Store — that
// every table answers a read and that the flag gives a mode the phase allows.
//
// Package schema depends on the root package and gocql; the algorithms never
// import it. Package cassandra is the Store that reads and writes these
// tables; cmd/lockctl prints and applies them.
package schema
