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
// # Hot legacy ids: gc_grace of the legacy tables
//
// The legacy format is frozen and reads whole rows: each of a legacy
// round's reads of legacy_main and legacy_shadow steps over every tombstone
// the row holds, and every acquisition leaves one in each (its main cell and
// its shadow cell, deleted). A tombstone stays until compaction purges it,
// no sooner than gc_grace_seconds after the delete. An id taken at a
// sustained r acquisitions per second therefore makes every read step over
// about r × gc_grace tombstones, and Cassandra warns above
// tombstone_warn_threshold (1,000 by default) and aborts the read above
// tombstone_failure_threshold (100,000) [1]. At the old fixed 3 h that is
// 0.093/s and 9.3/s: a combined-mode rollout of a hot id could fail its
// reads. WithLegacyTTL derives gc_grace from the longest TTL of any legacy
// writer instead (LegacyGCGrace: TTL + MaxServerSkew + 1 s + 5 min; 332 s at
// the default 30 s TTL), which moves the thresholds to r = 1,000/332 ≈ 3/s
// and 100,000/332 ≈ 301/s — above what one id can sustain, since a legacy
// acquisition and its release take 7 sequential requests (6 and 1: the
// golden file internal/shadow/testdata/legacy-format.golden lists them). (Purging also waits for
// compaction, and compaction never purges what is still in the memtable, so
// the legacy tables also flush their memtable and allow a single-SSTable
// tombstone compaction every gc_grace; a tombstone then lives about one to
// three gc_grace, so read the rates above as within a factor of three.)
//
// Why a tombstone purged that soon cannot bring a held lock's cell back. A
// deleted cell resurrects when some replica still holds a live copy of it
// after the tombstone is gone everywhere else: repair, read repair or a
// hint then copies the live cell back [2]. That is why gc_grace must
// normally outlast repair; it need not here, because every cell of these
// tables carries a TTL, and an expiring cell's end of life is fixed when it
// is written: its coordinator stamps it with its own clock's second plus
// the TTL, and every replica, hint and repair stream carries that stamp
// with the cell [3]. Each write of a cell happens before the delete that
// shadows it (a lock stops its renewals, and waits for the one in flight,
// before it deletes; the delete's timestamp is above every write's). So
// every copy of the cell, wherever it lives or travels, is dead within TTL
// + 1 s (whole-second expiry) + MaxServerSkew (a replica whose clock lags)
// of the delete, while no replica purges the tombstone before gc_grace
// after it by its own clock. With gc_grace above that sum, whatever a purge
// uncovers is already expired: an expired cell reconciles as dead, and a
// repair or hint carrying it brings nothing live back. The 5 min margin
// covers the one write the argument does not: one still on its way to a
// coordinator after its client gave up on it, which would be stamped late.
// Hints are kept at most gc_grace [2], so a shorter grace only drops hints
// for deletes of cells that expire anyway. The argument needs the TTL of
// every writer of the legacy tables, legacy binaries included: give the
// longest one (lockctl schema apply --legacy-ttl).
//
// [1] https://www.netdata.cloud/guides/cassandra/cassandra-tombstone-overwhelming-exception/
// (defaults 1,000 and 100,000 per read);
// https://cassandra.apache.org/doc/latest/cassandra/managing/operating/compaction/tombstones.html.
// [2] https://cassandra.apache.org/doc/latest/cassandra/managing/operating/compaction/tombstones.html
// (zombies); http://thelastpickle.com/blog/2018/03/21/hinted-handoff-gc-grace-demystified.html
// (a hint's TTL is the table's gc_grace; cited in palantir/atlasdb#3513);
// https://github.com/hector-client/hector/issues/636 (with TTL'd inserts
// and deletes, gc_grace must cover the TTL).
// [3] https://docs.datastax.com/en/cql/3.3/cql/cql_using/useExpire.html
// (TTL precision is one second, calculated by the coordinator node).
//
// Package schema depends on the root package and gocql; the algorithms never
// import it. Package cassandra is the Store that reads and writes these
// tables; cmd/lockctl prints and applies them.
package schema
