// Package layout is the one owner of the storage formats of the lock tables:
// how a cell of a lock row is named, what its value holds, how a read's cell
// is parsed back, and the facts about column order the algorithms rely on.
// Every package that writes or reads lock cells — queuelock and shadowlock,
// lockctl, the property tests and the integration checks — builds and
// parses them here, so the formats exist in one place each and cannot drift
// apart.
//
// It sits just above the root package (it imports lockstep for Cell and
// Slice, nothing else of the module) and below everything that touches a
// lock row. It holds no state and does no I/O.
//
// # Queue partition (queue.go)
//
// The queue lock keeps all cells of one lock id in one partition of its
// table (default queue_lock; row key = the lock id), in bytewise column
// order:
//
//	"<20-digit µs>/q/<owner>"     queue cell: <owner> waits in line
//	                              (deleted by its first renewal as
//	                              holder); value: <owner>
//	"~o/<process>/<incarnation>"  owner cell of one Locker; value: the
//	                              owner id of its acquisition that claims
//	"~~evidence"                  the evidence cell (evidence.go): the
//	                              highest fencing token a release recorded;
//	                              value: 8-byte big-endian, equal to its
//	                              write timestamp
//	"~~floor"                     the published read floor; value: 8-byte
//	                              big-endian µs, equal to its write timestamp
//	"~~i/<process>/<incarnation>" the intention range (intention.go): owner
//	                              cell of an IS or IX acquisition of a
//	                              Locker with Options.IntentionRange;
//	                              nothing else may ever sort here, since
//	                              intention claims do not read the range
//
// An owner column may carry a turn slot (".<k>", SlotColumn), and a handed
// cell is "~o/<process>/h<n>" (HandedColumn).
//
// The ordering facts (each tested in queue_test.go):
//
//   - Stamp order is time order: for 0 ≤ a < b, Stamp(a) < Stamp(b)
//     bytewise, so line order is column order and a queue cell's place is
//     fixed by its enqueue time (ties broken by owner id).
//   - Every queue cell sorts before every owner cell, every owner cell under
//     "~o/" before the evidence cell, the evidence cell before the floor
//     cell, and the floor cell before the intention range ('0'–'9' < '~',
//     "~o" < "~~", "~~e" < "~~f" and "~~f" < "~~i"). A read from a
//     floor to the end therefore still returns every owner cell and the
//     floor cell: lemma 1 (mutual exclusion) reads the owner cells in full,
//     whatever the floor is, and every read sees the published floor
//     (QueueSlice). One that stops at the range (IntentionlessSlice) returns
//     the same but the range's cells, which only intention claims skip.
//   - An owner cell's column names its Locker, not an acquisition: one
//     column per Locker per id, rewritten by each of its acquisitions.
//
// # Legacy rows (legacy.go)
//
// The legacy shadow-table lock keeps one cell per owner in two tables
// (default legacy_main and legacy_shadow; row key = the lock id): column =
// owner id, value empty. The format is frozen: processes still running the
// legacy code read and write it. It has no structure beyond that — a legacy
// peer's owner ids are whatever its code chose, and listing 4 counts cells
// without looking inside them — so no cell of a legacy row is foreign: any
// cell there is some owner's, and blocks others until it is deleted or
// expires, exactly as for the legacy code.
//
// # Lengths
//
// A process id is at most 255 bytes (internal/setup) and an owner id adds
// '.' and at most 20 digits, so the longest names are a queue column
// (20 + 3 + 276 bytes), an owner column (3 + 255 + 1 + 16) and a census
// column (the process id, 255). Each is a text clustering value, which
// Cassandra bounds at 65535 bytes; the lock id, the partition key, is at
// most lockstep.MaxIDLen (512). Nothing here limits a process id further.
// The frozen legacy format adds no limit of its own either: its column is
// the owner id as the legacy code chose it, read back only by counting
// cells, so the only bound is Cassandra's 65535 bytes for a clustering
// value — a legacy peer never parses this library's owner ids.
//
// # Foreign cells
//
// Parse refuses any cell of a queue partition that is none of the four
// kinds, or whose value is not what the kind carries: such a cell was not
// written by this library, so another writer shares the table. The
// algorithms turn that into an error the caller of Lock or TryLock sees
// (lockstep.ForeignCellError), not a cell to skip: an owner cell that names
// no owner, skipped, would let lemma 1's check miss a holder.
package layout
