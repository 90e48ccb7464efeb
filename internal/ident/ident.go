// Package ident names processes and acquisitions. Every cell a lock writes
// carries the owner id of exactly one acquisition, which is how the rule "a
// cell is written and deleted only by its owner" is kept: two acquisitions,
// even in one process, never share a column.
package ident

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"sync/atomic"

	"github.com/lockstep-go/lockstep"
)

var processRE = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// NewProcessID returns a random 128-bit process id in hex.
func NewProcessID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// ValidateProcessID refuses ids that could not be told apart inside a column
// name: it allows 1 to 64 of [A-Za-z0-9._:-].
func ValidateProcessID(id string) error {
	if !processRE.MatchString(id) {
		return &lockstep.ConfigError{Field: "ProcessID", Reason: fmt.Sprintf("%q must be 1–64 of [A-Za-z0-9._:-]", id)}
	}
	return nil
}

// Owners issues owner ids "<process>.<n>", unique per acquisition within the
// process. Safe for concurrent use.
type Owners struct {
	process string
	seq     atomic.Uint64
}

// NewOwners returns an issuer for process, which must be valid.
func NewOwners(process string) *Owners { return &Owners{process: process} }

// Process returns the process id.
func (o *Owners) Process() string { return o.process }

// Next returns a fresh owner id.
func (o *Owners) Next() string {
	return o.process + "." + strconv.FormatUint(o.seq.Add(1), 10)
}
