package queuelock

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Column layout of one lock id's partition (row key = lock id):
//
//	"!floor"                      the read floor (value: 8-byte big-endian µs)
//	"<20-digit µs>/o/<owner>"     owner cell: <owner> claims the lock
//	"<20-digit µs>/q/<owner>"     queue cell: <owner> waits in line
//
// Queue and owner cells are prefixed by the same zero-padded time (listing 6),
// the acquisition's hybrid-logical enqueue time, so the partition is ordered
// by time and one slice starting at the floor's time skips every tombstone
// older than the floor, whichever kind of cell left it. "!" sorts below every
// digit, so the floor cell is never inside such a slice.
const (
	floorColumn = "!floor"
	stampDigits = 20
	kindOwner   = 'o'
	kindQueue   = 'q'
)

// stamp renders a microsecond time as listing 6 does: zero-padded to 20
// digits, so bytewise order is numeric order.
func stamp(t int64) string {
	s := strconv.FormatInt(t, 10)
	if len(s) >= stampDigits {
		return s
	}
	return strings.Repeat("0", stampDigits-len(s)) + s
}

func queueColumn(t int64, owner string) string { return stamp(t) + "/q/" + owner }
func ownerColumn(t int64, owner string) string { return stamp(t) + "/o/" + owner }

// entry is a parsed queue or owner cell.
type entry struct {
	column string
	time   int64
	kind   byte
	owner  string
}

func parseColumn(col string) (entry, error) {
	if len(col) < stampDigits+3 || col[stampDigits] != '/' || col[stampDigits+2] != '/' {
		return entry{}, fmt.Errorf("queuelock: malformed column %q", col)
	}
	t, err := strconv.ParseInt(col[:stampDigits], 10, 64)
	if err != nil || t < 0 {
		return entry{}, fmt.Errorf("queuelock: malformed time in column %q", col)
	}
	kind := col[stampDigits+1]
	if kind != kindOwner && kind != kindQueue {
		return entry{}, fmt.Errorf("queuelock: unknown cell kind in column %q", col)
	}
	return entry{column: col, time: t, kind: kind, owner: col[stampDigits+3:]}, nil
}

func encodeFloor(t int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(t)) }

func decodeFloor(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("queuelock: floor cell holds %d bytes, want 8", len(b))
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}
