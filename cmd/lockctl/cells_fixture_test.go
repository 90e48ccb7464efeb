package main

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
)

// The cells below are written byte for byte in the formats of
// docs/algorithms.md (sections 3 and 4.1), independently of the library's
// own encoder, so that lockctl's tests check what it reads against the
// documented formats.

// docQueueCell is owner's queue cell, enqueued at µs t: "<20-digit µs>/q/<owner>",
// value owner (an exclusive acquisition writes no access line).
func docQueueCell(t int64, owner string, ts int64, ttl time.Duration) lockstep.Cell {
	return lockstep.Cell{Column: fmt.Sprintf("%020d/q/%s", t, owner), Value: []byte(owner), Timestamp: ts, TTL: ttl}
}

// docOwnerCell is the exclusive owner cell of the Locker of process with the
// given incarnation, held by owner: "~o/<process>/<16 hex digits>".
func docOwnerCell(process string, incarnation uint64, owner string, ts int64, ttl time.Duration) lockstep.Cell {
	return lockstep.Cell{Column: fmt.Sprintf("~o/%s/%016x", process, incarnation), Value: []byte(owner), Timestamp: ts, TTL: ttl}
}

// floorCell publishes floor v (µs): column "~~floor", value 8 bytes
// big-endian, written at timestamp v.
func docFloorCell(v int64, ttl time.Duration) lockstep.Cell {
	return lockstep.Cell{Column: "~~floor", Value: binary.BigEndian.AppendUint64(nil, uint64(v)), Timestamp: v, TTL: ttl}
}

// docLegacyCell is owner's cell of a legacy row: column = owner id, empty value.
func docLegacyCell(owner string, ts int64, ttl time.Duration) lockstep.Cell {
	return lockstep.Cell{Column: owner, Value: []byte{}, Timestamp: ts, TTL: ttl}
}
