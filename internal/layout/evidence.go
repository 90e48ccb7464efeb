package layout

import (
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
)

// The evidence cell (queuelock.Options.Evidence; docs/algorithms.md,
// section 5.3). A Locker that records evidence writes, beside every request
// that deletes or writes one of its owner cells of an id (a renewal of a
// live hold's own cell aside), the highest fencing token its process has
// drawn, as value and write timestamp, so that last-write-wins keeps the
// highest any process recorded. An acquisition that draws its token beside
// its claim keeps it only if it is above the evidence its claim read
// returned.
//
// The column sorts after every owner cell under OwnerPrefix and before the
// floor cell ("~~e" < "~~f"), so every read that can return an owner cell
// (QueueSlice, IntentionlessSlice) returns it too: a read repair that
// carries a release's tombstone to a replica carries the release's
// evidence with it. A recording Locker does not read its own cell alone
// (OwnSlice), for that read would repair the tombstone by itself.

// EvidenceColumn names the evidence cell of a queue partition.
const EvidenceColumn = "~~evidence"

// EvidenceCell is the evidence cell recording token v, with the given TTL.
// Its write timestamp is v itself, as for the floor cell.
func EvidenceCell(v int64, ttl time.Duration) lockstep.Cell {
	return lockstep.Cell{Column: EvidenceColumn, Value: EncodeFloor(v), Timestamp: v, TTL: ttl}
}

// DecodeEvidence parses an evidence cell's value: 8 bytes, big-endian, a
// positive token.
func DecodeEvidence(b []byte) (int64, error) {
	if len(b) != floorBytes {
		return 0, fmt.Errorf("evidence cell holds %d bytes, want %d", len(b), floorBytes)
	}
	v, err := DecodeFloor(b)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("evidence cell holds token %d, want a positive one", v)
	}
	return v, nil
}
