package cqlstore

import (
	"fmt"

	"github.com/lockstep-go/lockstep"
)

// Level is a consistency level by its native-protocol code. Both drivers'
// Consistency types are uint16 holding these codes, so Level(c) converts
// either.
type Level uint16

// The consistency levels of the native protocol.
const (
	Any         Level = 0x00
	One         Level = 0x01
	Two         Level = 0x02
	Three       Level = 0x03
	Quorum      Level = 0x04
	All         Level = 0x05
	LocalQuorum Level = 0x06
	EachQuorum  Level = 0x07
	Serial      Level = 0x08
	LocalSerial Level = 0x09
	LocalOne    Level = 0x0A
)

var levelNames = [...]string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL",
	"LOCAL_QUORUM", "EACH_QUORUM", "SERIAL", "LOCAL_SERIAL", "LOCAL_ONE"}

// String returns the level's CQL name, as both drivers print it.
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("UNKNOWN_CONS_0x%x", uint16(l))
}

// ValidatePair accepts the read and write levels whose replica sets
// intersect whatever the replication factor, so a read that starts after a
// write completed sees it: QUORUM reads with QUORUM or EACH_QUORUM writes,
// LOCAL_QUORUM reads with LOCAL_QUORUM or EACH_QUORUM writes, and any pair
// with ALL on one side (but not ANY writes). Anything else, and any serial or
// unknown level, gives a ConfigError on the field "consistency" that names
// the pair. See package cassandra's WithConsistency for the reasons.
func ValidatePair(read, write Level) error {
	known := func(x Level) bool {
		switch x {
		case One, Two, Three, Quorum, All, LocalQuorum, EachQuorum, LocalOne:
			return true
		}
		return false
	}
	bad := func(reason string) error {
		return &lockstep.ConfigError{Field: "consistency", Reason: fmt.Sprintf("read %v, write %v: %s", read, write, reason)}
	}
	switch {
	case !known(read) || read == EachQuorum:
		return bad("unsupported read level")
	case !known(write):
		return bad("unsupported write level")
	case read == All || write == All:
		return nil
	case read == Quorum && (write == Quorum || write == EachQuorum):
		return nil
	case read == LocalQuorum && (write == LocalQuorum || write == EachQuorum):
		return nil
	}
	return bad("reads and writes do not overlap for every replication factor (need R + W > RF)")
}

// CommitLevel returns the consistency of the commit phase of lightweight
// transactions run at serial: QUORUM for SERIAL, LOCAL_QUORUM for
// LOCAL_SERIAL. Any other level gives a ConfigError.
func CommitLevel(serial Level) (Level, error) {
	switch serial {
	case Serial:
		return Quorum, nil
	case LocalSerial:
		return LocalQuorum, nil
	}
	return 0, &lockstep.ConfigError{Field: "serial consistency", Reason: fmt.Sprintf("%v: want SERIAL or LOCAL_SERIAL", serial)}
}

// ValidateScope accepts the read and write levels that keep a lock of scope
// exclusive, on top of ValidatePair (docs/multi-dc.md gives the argument):
//
//   - global: the read and write replica sets must intersect whatever data
//     centre each coordinator is in: QUORUM with QUORUM, EACH_QUORUM writes
//     with QUORUM or LOCAL_QUORUM reads (the write holds a quorum of every
//     data centre, the reader's among them), or ALL on either side.
//     LOCAL_QUORUM writes are refused: they may reach one data centre only.
//   - local to a data centre: any pair ValidatePair accepts, since each
//     intersects within one data centre; the data centre must be named
//     (lockstep.ValidateDC).
//
// A refusal is a ConfigError on the field "consistency" that says what to
// use instead.
func ValidateScope(scope lockstep.Scope, read, write Level) error {
	if !scope.IsGlobal() {
		if err := lockstep.ValidateDC(scope.DC()); err != nil {
			return err
		}
	}
	if err := ValidatePair(read, write); err != nil {
		return err
	}
	if !scope.IsGlobal() || read == All || write == All || write == EachQuorum || (read == Quorum && write == Quorum) {
		return nil
	}
	return &lockstep.ConfigError{Field: "consistency", Reason: fmt.Sprintf(
		"read %v, write %v cannot keep a global lock global: a write acknowledged by one data centre's quorum "+
			"is not seen by a read in another, so two processes in two data centres can both hold one lock; "+
			"use QUORUM reads and writes, or EACH_QUORUM writes with LOCAL_QUORUM reads (a data centre down then blocks writes), "+
			"or make the lock DC-local (WithLocalDC) if every contender for an id lives in one data centre", read, write)}
}

// ValidateSerialScope refuses LOCAL_SERIAL for a global scope: Paxos among
// one data centre's replicas does not order writers in two. A DC-local
// scope takes either serial level.
func ValidateSerialScope(scope lockstep.Scope, serial Level) error {
	if scope.IsGlobal() && serial == LocalSerial {
		return &lockstep.ConfigError{Field: "serial consistency", Reason: "LOCAL_SERIAL cannot order fenced writers " +
			"in two data centres, so a stale token can win in one: use SERIAL (the default), or name the one data centre " +
			"every writer of these keys lives in (WithFenceLocalDC)"}
	}
	if !scope.IsGlobal() {
		return lockstep.ValidateDC(scope.DC())
	}
	return nil
}
