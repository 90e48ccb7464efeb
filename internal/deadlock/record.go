package deadlock

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/lockstep-go/lockstep"
)

// Hold is one id a waiting identity holds.
type Hold struct {
	ID     string          `json:"i"`
	Access lockstep.Access `json:"a"`
	// Owner is the Owner() of the handle that holds ID: for a lock of
	// several members, the handle's (its first member's owner id), not
	// the owner id of ID's own cell. Reports show it as HeldBy.
	Owner string `json:"o"`
}

// Record is one published wait: the value of one cell of the wait table,
// named Name. A Name is never reused (R2, doc.go).
type Record struct {
	Name    string           `json:"-"`
	Process string           `json:"p"`
	Waits   lockstep.Request `json:"w"`
	Holds   []Hold           `json:"h,omitempty"`
	// Comment is the caller's comment, byte for byte. JSON strings are
	// UTF-8, so "c" carries it as encoding/json writes it (each invalid
	// byte as U+FFFD) and "cb" carries its bytes when it is not valid
	// UTF-8: a reader that knows only "c" still decodes every record (and
	// shows the replaced text), and decode returns the exact bytes.
	Comment    string `json:"c,omitempty"`
	RawComment []byte `json:"cb,omitempty"`
	Start      int64  `json:"s"` // wall clock of the waiter, µs since the epoch
}

// encode returns the cell value of r.
func (r *Record) encode() ([]byte, error) {
	out := *r
	out.RawComment = nil
	if !utf8.ValidString(r.Comment) {
		out.RawComment = []byte(r.Comment)
	}
	return json.Marshal(&out)
}

// decode parses a cell value into r; a value that does not parse, or
// names no valid access, is not a record.
func (r *Record) decode(v []byte) bool {
	if json.Unmarshal(v, r) != nil || !r.Waits.Access.Valid() {
		return false
	}
	if r.RawComment != nil {
		r.Comment, r.RawComment = string(r.RawComment), nil
	}
	return true
}
