package model

import (
	"bytes"
	"fmt"
)

// CellKind is what a stored cell is, in Cassandra's terms.
type CellKind uint8

const (
	// Live is a regular cell without TTL (Cassandra: localDeletionTime ==
	// NO_DELETION_TIME). It is the zero CellKind.
	Live CellKind = iota
	// Expiring is a cell written with a TTL (Cassandra: ttl != NO_TTL). It is
	// live while the replica's time in seconds is below its
	// LocalDeletionTime; after that it reads as a tombstone.
	Expiring
	// Tombstone is a deletion marker (Cassandra: localDeletionTime set and
	// ttl == NO_TTL). It never reads as a value.
	Tombstone
)

var kindNames = [...]string{Live: "live", Expiring: "expiring", Tombstone: "tombstone"}

// String returns the kind's lower-case name.
func (k CellKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("CellKind(%d)", uint8(k))
}

// MaxTTL is the largest TTL Cassandra accepts, in seconds (20 years;
// Attributes.MAX_TTL).
const MaxTTL = 20 * 365 * 24 * 60 * 60

// StoredCell is one cell as a replica stores it: the unit the replica-level
// API (Apply, Scan, Reconcile) works on. Values are copied by the Store on the
// way in and out, so a StoredCell handed to or returned by the Store may be
// reused.
type StoredCell struct {
	Column    string
	Value     []byte // always empty for a Tombstone
	Timestamp int64  // write timestamp, microseconds
	Kind      CellKind
	// TTL is the TTL the cell was written with, in seconds; only meaningful
	// for Expiring cells (Cassandra needs it to turn an expired cell into a
	// tombstone dated at its creation: localDeletionTime - ttl).
	TTL int64
	// LocalDeletionTime is in seconds since the epoch: the expiry second of an
	// Expiring cell (write second + TTL, computed by the coordinator) or the
	// deletion second of a Tombstone. Ignored for Live cells.
	LocalDeletionTime int64
}

// LiveCell returns a Live cell.
func LiveCell(column string, value []byte, ts int64) StoredCell {
	return StoredCell{Column: column, Value: value, Timestamp: ts, Kind: Live}
}

// ExpiringCell returns an Expiring cell written at nowSec (the coordinator's
// time in seconds) with a TTL of ttl seconds, so that LocalDeletionTime is
// nowSec + ttl, as Cassandra's ExpiringCell.
func ExpiringCell(column string, value []byte, ts, ttl, nowSec int64) StoredCell {
	return StoredCell{Column: column, Value: value, Timestamp: ts, Kind: Expiring, TTL: ttl, LocalDeletionTime: nowSec + ttl}
}

// TombstoneCell returns a Tombstone written at nowSec (seconds).
func TombstoneCell(column string, ts, nowSec int64) StoredCell {
	return StoredCell{Column: column, Timestamp: ts, Kind: Tombstone, LocalDeletionTime: nowSec}
}

// IsLive reports whether c reads as a value at nowSec, exactly as
// Cassandra's AbstractCell.isLive: localDeletionTime == NO_DELETION_TIME ||
// (ttl != NO_TTL && nowInSec < localDeletionTime). An Expiring cell is thus
// already dead in its expiry second.
func (c StoredCell) IsLive(nowSec int64) bool {
	switch c.Kind {
	case Live:
		return true
	case Expiring:
		return nowSec < c.LocalDeletionTime
	}
	return false
}

// Validate reports a cell the store cannot hold: an unknown kind, or an
// Expiring cell whose TTL is not in [1, MaxTTL] seconds.
func (c StoredCell) Validate() error {
	switch c.Kind {
	case Live, Tombstone:
		return nil
	case Expiring:
		if c.TTL <= 0 || c.TTL > MaxTTL {
			return fmt.Errorf("model: cell %q: TTL %ds outside [1, %d]", c.Column, c.TTL, MaxTTL)
		}
		return nil
	}
	return fmt.Errorf("model: cell %q: unknown kind %v", c.Column, c.Kind)
}

// normalized returns a copy of c that owns its value and carries no field its
// kind ignores, so that equal cells compare equal field by field.
func (c StoredCell) normalized() StoredCell {
	switch c.Kind {
	case Live:
		c.TTL, c.LocalDeletionTime = 0, 0
	case Tombstone:
		c.TTL, c.Value = 0, nil
	}
	c.Value = cloneBytes(c.Value)
	return c
}

// clone returns a copy of c that shares no memory with it.
func (c StoredCell) clone() StoredCell {
	c.Value = cloneBytes(c.Value)
	return c
}

// cloneBytes copies b; empty input yields a non-nil empty slice, so that an
// empty value stays distinguishable from an absent cell.
func cloneBytes(b []byte) []byte {
	return append(make([]byte, 0, len(b)), b...)
}

// purgeAt applies Cassandra's compaction-time purge (AbstractCell.purge, 5.0)
// to c at nowSec with the given gc grace, returning the cell to keep and
// whether to keep one at all:
//
//   - a live cell is kept as is;
//   - a dead cell (tombstone or expired cell) whose localDeletionTime is
//     before gcBefore = nowSec - gcGrace is dropped (the purger's
//     `localDeletionTime < gcBefore`);
//   - otherwise an expired cell becomes a tombstone with the same timestamp
//     and localDeletionTime - ttl, its creation second, which is then checked
//     for purging again.
func (c StoredCell) purgeAt(nowSec, gcGrace int64) (StoredCell, bool) {
	if c.IsLive(nowSec) {
		return c, true
	}
	gcBefore := nowSec - gcGrace
	if c.LocalDeletionTime < gcBefore {
		return StoredCell{}, false
	}
	if c.Kind == Expiring {
		t := TombstoneCell(c.Column, c.Timestamp, c.LocalDeletionTime-c.TTL)
		if t.LocalDeletionTime < gcBefore {
			return StoredCell{}, false
		}
		return t, true
	}
	return c, true
}

// Reconcile returns the cell that wins when a and b, two versions of the same
// column, meet, by the rules of Cassandra 4.x/5.0 Cells.resolveRegular:
//
//  1. the higher Timestamp wins;
//  2. on equal timestamps an Expiring cell or a Tombstone beats a Live cell
//     (CASSANDRA-14592: expiring cells count as future tombstones, so the
//     result does not depend on when reconciliation runs), whether or not
//     the expiring cell has expired yet;
//  3. then a Tombstone beats an Expiring cell;
//  4. then (both expiring or both tombstones) the larger LocalDeletionTime
//     wins;
//  5. then the larger value, compared as unsigned bytes (ValueAccessor.compare
//     → ByteBufferUtil.compareUnsigned), wins; Cassandra keeps the left cell
//     on equal values.
//
// Where Cassandra's pick depends only on argument order (all of the above
// equal), this function prefers the smaller TTL (the later creation second,
// whose tombstone is kept longer) and then a, so that Reconcile is commutative
// and associative in every field, not only in what reads can observe.
//
// It returns a copy sharing no memory with a or b.
func Reconcile(a, b StoredCell) StoredCell {
	if reconcileLeft(a, b) {
		return a.clone()
	}
	return b.clone()
}

// reconcileLeft reports whether left wins against right (see Reconcile).
func reconcileLeft(left, right StoredCell) bool {
	if left.Timestamp != right.Timestamp {
		return left.Timestamp > right.Timestamp
	}
	leftDel, rightDel := left.Kind != Live, right.Kind != Live
	if leftDel || rightDel {
		if leftDel != rightDel {
			return leftDel
		}
		leftTomb, rightTomb := left.Kind == Tombstone, right.Kind == Tombstone
		if leftTomb != rightTomb {
			return leftTomb
		}
		if left.LocalDeletionTime != right.LocalDeletionTime {
			return left.LocalDeletionTime > right.LocalDeletionTime
		}
	}
	if c := bytes.Compare(left.Value, right.Value); c != 0 {
		return c > 0
	}
	// Cassandra returns left here; break the tie on TTL for commutativity.
	return left.TTL <= right.TTL
}

// floorDiv divides rounding towards negative infinity, so that a time before
// the epoch still falls in the right second.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// secondsOf returns the whole second a microsecond timestamp falls in.
func secondsOf(micros int64) int64 { return floorDiv(micros, 1_000_000) }
