package lockstep

import (
	"fmt"
	"strings"
)

// Flags declare, per Request, how the caller reads its id on a Locker
// whose ids are paths (a Locker built with a separator, lockd's
// --separator): seed 003's per-query HIERARCHY and MASK flags, with a
// Locker's one separator. The zero value declares nothing, and the request
// is read as its Locker reads every id.
//
// Flags never change what a request takes, only what it may name: every
// request of a Locker is planned under the Locker's one reading of ids, so
// queries with and without flags on the same ids exclude each other as the
// hierarchy says (docs/algorithms.md, section 8.9). A request whose flags
// disagree with that reading — a Flat request naming a path, a NoMask
// request naming a mask — is refused with an error wrapping ErrInvalidID
// that says what to pass, having taken nothing. On a Locker of flat ids
// (no separator) no id is a path or a mask, and both flags hold of every id.
type Flags uint8

const (
	// Flat declares the id one name, not a path (the seed's query without
	// HIERARCHY): an id holding the Locker's separator is refused, unless
	// it is the mask of one name ("orders/*"), so the request has no
	// ancestors: it never takes an intention lock and never skips one.
	Flat Flags = 1 << iota
	// NoMask declares the id no mask (the seed's query without MASK): an
	// id whose last path segment is "*" is refused.
	NoMask
)

// Valid reports whether f holds only Flat and NoMask.
func (f Flags) Valid() bool { return f&^(Flat|NoMask) == 0 }

// String renders f as "flat", "no-mask", "flat|no-mask", "" for none, and
// "flags(0x..)" with unknown bits.
func (f Flags) String() string {
	if !f.Valid() {
		return fmt.Sprintf("flags(%#02x)", uint8(f))
	}
	var s []string
	if f&Flat != 0 {
		s = append(s, "flat")
	}
	if f&NoMask != 0 {
		s = append(s, "no-mask")
	}
	return strings.Join(s, "|")
}
