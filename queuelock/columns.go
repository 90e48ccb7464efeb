package queuelock

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"strings"
)

// Column layout of one lock id's partition (row key = lock id), in the
// partition's (bytewise) order:
//
//	"<20-digit µs>/q/<owner>"     queue cell: <owner> waits in line
//	"~o/<process>/<incarnation>"  owner cell of one Locker (value: <owner>)
//	"~~floor"                     the published read floor (value: 8-byte
//	                              big-endian µs)
//
// Queue cells are named by the acquisition's hybrid-logical enqueue time,
// zero-padded as in listing 6, so line order is column order and a slice
// starting at the floor's time skips every queue tombstone below it.
//
// Owner cells and then the floor cell sort after every queue cell, so the
// same slice ends with them: one read fetches the queue above the floor,
// every owner cell and the floor published by the latest claims. An
// owner cell is named by its Locker, not by the acquisition: a Locker has at
// most one acquisition of an id contending in the store at a time (its
// in-process turn, DESIGN §4.2 item 6), which rewrites the one column with
// its owner id as value. Owner tombstones therefore number at most one per
// Locker that ever claimed the id (until gc_grace), not one per acquisition,
// and the owner cells are read in full — no floor is involved in lemma 1.
// The incarnation, random per Locker, keeps two Lockers apart even when they
// were (wrongly) given one ProcessID, or when a restarted process reuses the
// id of one still paused somewhere.
const (
	floorColumn = "~~floor"
	stampDigits = 20
	kindQueue   = 'q'
	kindOwner   = 'o'
	ownerPrefix = "~o/"
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

// ownerColumnFor names the owner cell of a Locker of process: the process id
// and a fresh random incarnation, drawn from r if it is not nil.
func ownerColumnFor(process string, r *mrand.Rand) string {
	var b [8]byte
	if r != nil {
		binary.BigEndian.PutUint64(b[:], r.Uint64())
	} else {
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	}
	return ownerPrefix + process + "/" + hex.EncodeToString(b[:])
}

// entry is a parsed queue or owner cell.
type entry struct {
	column string
	time   int64 // enqueue time (queue cells only)
	kind   byte
	owner  string // the acquisition: in the name (queue), the value (owner)
}

func parseCell(col string, value []byte) (entry, error) {
	if strings.HasPrefix(col, ownerPrefix) {
		if len(value) == 0 {
			return entry{}, fmt.Errorf("queuelock: owner cell %q names no owner", col)
		}
		return entry{column: col, kind: kindOwner, owner: string(value)}, nil
	}
	if len(col) < stampDigits+4 || col[stampDigits] != '/' || col[stampDigits+1] != kindQueue || col[stampDigits+2] != '/' {
		return entry{}, fmt.Errorf("queuelock: malformed column %q", col)
	}
	t, err := strconv.ParseInt(col[:stampDigits], 10, 64)
	if err != nil || t < 0 {
		return entry{}, fmt.Errorf("queuelock: malformed time in column %q", col)
	}
	return entry{column: col, time: t, kind: kindQueue, owner: col[stampDigits+3:]}, nil
}

func encodeFloor(t int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(t)) }

func decodeFloor(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("queuelock: floor cell holds %d bytes, want 8", len(b))
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}
