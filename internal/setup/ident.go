// Process ids and owner ids (ident.go) name processes and acquisitions. Every cell a lock writes
// carries the owner id of exactly one acquisition, which is how the rule "a
// cell is written and deleted only by its owner" is kept: two acquisitions,
// even in one process, never share a column.
//
// A process id is 1 to MaxProcessIDLen bytes of [A-Za-z0-9._:-]. The bound
// leaves room for a pod's fully qualified domain name (at most 253 bytes)
// and is far inside every place the id goes (internal/layout): a clustering
// column value (a census cell's column, a legacy cell's column, inside a
// queue or owner cell's column) may hold up to 65535 bytes, and an owner id
// adds only "." and a decimal counter. '/' is excluded because owner
// columns ("~o/<process>/<incarnation>") are split on it. ValidateProcessID
// is the one place that checks it, and its error text is the one every
// Locker returns.

package setup

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/lockstep-go/lockstep"
)

// MaxProcessIDLen is the longest process id accepted, in bytes.
const MaxProcessIDLen = 255

// suffixHex is the length of the random suffix of a default process id: 64
// bits, so two processes on one host (or two hosts with one name) do not
// collide by chance.
const suffixHex = 16

// NewProcessID returns a default process id: the sanitized host name
// (HostPart(os.Hostname())), a '-', and 64 random bits in hex, so a census
// lists which machine each process runs on. Without a host name it is
// "lockstep-" and the suffix.
func NewProcessID() string {
	host, _ := os.Hostname()
	return NewProcessIDFor(host)
}

// NewProcessIDFor is NewProcessID for the given host name.
func NewProcessIDFor(host string) string {
	var b [suffixHex / 2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	h := HostPart(host)
	h = cmp.Or(h, "lockstep")
	return h + "-" + hex.EncodeToString(b[:])
}

// HostPart sanitizes a host name for a process id: every byte outside
// [A-Za-z0-9._:-] becomes '-', and the result is cut to leave room for the
// random suffix within MaxProcessIDLen.
func HostPart(host string) string {
	var b strings.Builder
	for i := 0; i < len(host) && b.Len() < MaxProcessIDLen-1-suffixHex; i++ {
		c := host[i]
		if !allowed(c) {
			c = '-'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func allowed(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '.' || c == '_' || c == ':' || c == '-'
}

// ValidateProcessID refuses ids that could not be told apart inside a column
// name: it allows 1 to MaxProcessIDLen of [A-Za-z0-9._:-]. The error is a
// *lockstep.ConfigError for field ProcessID that says what to do.
func ValidateProcessID(id string) error {
	bad := func(what string) error {
		return &lockstep.ConfigError{Field: "ProcessID", Reason: fmt.Sprintf(
			"%s: a process id is 1 to %d bytes of [A-Za-z0-9._:-]; use e.g. the pod or host name, "+
				"or leave it empty for a default (host name and a random suffix)", what, MaxProcessIDLen)}
	}
	switch {
	case id == "":
		return bad("empty")
	case len(id) > MaxProcessIDLen:
		return bad(fmt.Sprintf("%d bytes (%.40q…)", len(id), id))
	}
	for i := 0; i < len(id); i++ {
		if !allowed(id[i]) {
			return bad(fmt.Sprintf("%q has %q at byte %d", id, id[i], i))
		}
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

// OwnersFor returns the owner-id issuer a Locker of process uses: o, shared
// with the process's other Lockers, or a new one when o is nil. An issuer
// of another process is refused with an error wrapping
// lockstep.ErrInvalidConfig.
func OwnersFor(o *Owners, process string) (*Owners, error) {
	switch {
	case o == nil:
		return NewOwners(process), nil
	case o.process != process:
		return nil, &lockstep.ConfigError{Field: "ProcessID", Reason: fmt.Sprintf("the shared owner-id issuer is process %q's, not %q: build the process's Lockers with one ProcessID", o.process, process)}
	}
	return o, nil
}

// Next returns a fresh owner id.
func (o *Owners) Next() string {
	return o.process + "." + strconv.FormatUint(o.seq.Add(1), 10)
}
