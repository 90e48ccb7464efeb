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

// ValidateScope accepts the read and write levels whose replica sets
// intersect whatever the replication factor, so a read that starts after a
// write completed sees it, and that keep a lock of scope exclusive
// (docs/multi-dc.md gives the argument of each pair):
//
//   - global: the sets must intersect whatever data centre each
//     coordinator is in: QUORUM with QUORUM, EACH_QUORUM writes with QUORUM
//     or LOCAL_QUORUM reads (the write holds a quorum of every data centre,
//     the reader's among them), or ALL on either side (not ANY writes).
//     LOCAL_QUORUM writes are refused: they may reach one data centre only.
//   - local to a data centre: LOCAL_QUORUM reads and writes too, since they
//     intersect within one data centre; the data centre must be named
//     (lockstep.ValidateDC).
//
// Every refusal is a ConfigError on the field "consistency" that names the
// pair given, says why it is refused and what to use for scope.
func ValidateScope(scope lockstep.Scope, read, write Level) error {
	if !scope.IsGlobal() {
		if err := lockstep.ValidateDC(scope.DC()); err != nil {
			return err
		}
	}
	why := refusal(scope, read, write)
	if why == "" {
		return nil
	}
	return &lockstep.ConfigError{Field: "consistency", Reason: fmt.Sprintf("read %v, write %v%s; %s", read, write, why, useInstead(scope))}
}

// refusal returns why scope cannot take reads at read and writes at write,
// to follow the pair's name in the error, or "" if it can.
func refusal(scope lockstep.Scope, read, write Level) string {
	switch {
	case read == Serial || read == LocalSerial || write == Serial || write == LocalSerial:
		return ": the serial levels order lightweight transactions (a fence store's WithSerialConsistency), not plain reads and writes"
	case read == Any || read == EachQuorum:
		return fmt.Sprintf(": %v is a write level, which Cassandra refuses for reads", read)
	case !known(read) || !known(write):
		return ": an unknown consistency level"
	case write == Any:
		return ": an ANY write may be acknowledged by a hint alone, on no replica, so no read is sure to see it"
	case read == All || write == All:
		return "" // every replica on one side
	case write == EachQuorum && (read == Quorum || read == LocalQuorum):
		return ""
	case read == Quorum && write == Quorum:
		return ""
	case read == LocalQuorum && write == LocalQuorum && !scope.IsGlobal():
		return ""
	case read == LocalQuorum && write == LocalQuorum:
		return " cannot keep a global lock global: a write acknowledged by one data centre's quorum " +
			"is not seen by a read in another, so two processes in two data centres can both hold one lock"
	case weak(read) || weak(write):
		return ": reads and writes do not overlap for every replication factor (need R + W > RF): ONE, TWO, THREE and LOCAL_ONE " +
			"meet the other side only for some replication factors, unless that side is ALL"
	}
	return ": reads and writes do not overlap for every replication factor (need R + W > RF): a QUORUM of the whole cluster and a " +
		"LOCAL_QUORUM of one data centre can miss each other (docs/multi-dc.md gives replication factors where they do)"
}

// useInstead says which levels scope takes.
func useInstead(scope lockstep.Scope) string {
	if scope.IsGlobal() {
		return "use QUORUM reads and writes, or EACH_QUORUM writes with LOCAL_QUORUM reads " +
			"(a data centre down then blocks writes), or make the lock DC-local (WithLocalDC) if every contender " +
			"for an id lives in one data centre"
	}
	return fmt.Sprintf("use LOCAL_QUORUM reads and writes (the default of a store local to %s), "+
		"or QUORUM reads and writes, or EACH_QUORUM writes with LOCAL_QUORUM reads", scope.DC())
}

// known reports whether x is a regular consistency level of the native
// protocol.
func known(x Level) bool {
	switch x {
	case Any, One, Two, Three, Quorum, All, LocalQuorum, EachQuorum, LocalOne:
		return true
	}
	return false
}

// weak reports whether x asks for a fixed number of replicas, not a
// majority.
func weak(x Level) bool { return x == One || x == Two || x == Three || x == LocalOne }

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
