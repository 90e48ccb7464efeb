package layout

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep"
)

const (
	// FloorColumn names the floor cell of a queue partition. It sorts after
	// every queue cell and every owner cell under OwnerPrefix, and before
	// the intention range (IntentionPrefix).
	FloorColumn = "~~floor"
	// OwnerPrefix starts the column of every owner cell outside the
	// intention range. It sorts after every queue cell and before
	// FloorColumn.
	OwnerPrefix = "~o/"
	// StampDigits is the width of a queue cell's time prefix: enough for any
	// non-negative int64, zero-padded as in listing 6.
	StampDigits = 20

	queueInfix     = "/q/"
	minQueueColumn = StampDigits + len(queueInfix) + 1 // time, infix, an owner of at least one byte
	floorBytes     = 8
)

// Kind is the kind of a queue-partition cell.
type Kind uint8

const (
	// Queue is a queue cell: one acquisition's place in line.
	Queue Kind = iota + 1
	// Owner is an owner cell: one Locker's claim on the lock.
	Owner
	// Floor is the published read floor.
	Floor
	// Evidence is the highest fencing token recorded by releases
	// (evidence.go).
	Evidence
)

func (k Kind) String() string {
	switch k {
	case Queue:
		return "queue"
	case Owner:
		return "owner"
	case Floor:
		return "floor"
	case Evidence:
		return "evidence"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Entry is a parsed cell of a queue partition.
type Entry struct {
	Column string
	Kind   Kind
	// Time is the enqueue time, in µs, named by a queue cell; 0 otherwise.
	Time int64
	// Owner is the acquisition's owner id: from a queue cell's name, or an
	// owner cell's value; "" for the floor cell.
	Owner string
	// Process is the process id of the Locker whose owner cell this is; ""
	// for the other kinds.
	Process string
	// Floor is the floor cell's value, in µs; 0 for the other kinds.
	Floor int64
	// Token is the evidence cell's value, a fencing token; 0 for the other
	// kinds.
	Token int64
	// Wake is where the waiter of a queue cell can be woken (its value's
	// wake address, see WakeQueueCell); "" when it published none.
	Wake string
	// Access is what a queue or owner cell's acquisition asks for or holds
	// (see Value): Exclusive for a value that names none.
	Access lockstep.Access
	// Timestamp is the cell's write timestamp as read (Parse leaves it 0;
	// the reader sets it from lockstep.Cell.Timestamp).
	Timestamp int64
}

// Stamp renders a microsecond time t ≥ 0 as listing 6 does: zero-padded to
// StampDigits digits, so that bytewise order is numeric order.
func Stamp(t int64) string {
	s := strconv.FormatInt(t, 10)
	if len(s) >= StampDigits {
		return s
	}
	return strings.Repeat("0", StampDigits-len(s)) + s
}

// QueueColumn names the queue cell of the acquisition owner, enqueued at t
// (µs, t ≥ 0): "<Stamp(t)>/q/<owner>". Queue columns sort by t first.
func QueueColumn(t int64, owner string) string { return Stamp(t) + queueInfix + owner }

// OwnerColumn names the owner cell of the Locker of process with the given
// incarnation: "~o/<process>/<16 hex digits>". Process ids contain no '/'
// (internal/setup), so the column parses back unambiguously.
func OwnerColumn(process string, incarnation uint64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], incarnation)
	return OwnerPrefix + process + "/" + hex.EncodeToString(b[:])
}

// NewOwnerColumn names the owner cell of a new Locker of process, with a
// fresh random incarnation drawn from r, or from crypto/rand if r is nil.
// The incarnation keeps two Lockers apart even when they were (wrongly)
// given one process id, or when a restarted process reuses the id of one
// still paused somewhere.
func NewOwnerColumn(process string, r *mrand.Rand) string {
	var inc uint64
	if r != nil {
		inc = r.Uint64()
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
		inc = binary.BigEndian.Uint64(b[:])
	}
	return OwnerColumn(process, inc)
}

// SlotColumn names the owner cell of a Locker's slot on one id: slot 0 is
// the Locker's own column (OwnerColumn), so an exclusive acquisition, which
// always has slot 0, writes what a Locker that predates accesses writes;
// slot k ≥ 1, used while k+1 compatible acquisitions of one Locker hold an id
// at once (internal/lifecycle, Turns), is "<column>.<k>". Slots are reused, so a Locker
// leaves at most as many owner columns in a partition as it ever held
// acquisitions of the id at once. ParseOwnerColumn reads "<incarnation>.<k>"
// as the incarnation, as a Locker that predates slots reads it too.
func SlotColumn(column string, slot int) string {
	if slot == 0 {
		return column
	}
	return column + "." + strconv.Itoa(slot)
}

// AdoptColumn names the owner cell a Locker writes for an adoption
// (docs/algorithms.md, section 8.7) of an id whose turn its own contenders
// hold: "<column>.a", which no turn slot (SlotColumn, a number) names, so
// those contenders' claims count the adopted cell as another owner's.
// ParseOwnerColumn reads it, as it reads a slot, as the incarnation.
func AdoptColumn(column string) string { return column + ".a" }

// HandedColumn names the handed cell of the acquisition owner (an owner id,
// "<process>.<n>"): the owner cell a releaser writes for the next waiter
// when it hands the lock over (docs/algorithms.md, section 4.12). It is
// "~o/<process>/h<n>", an owner column in the format every Locker parses
// (ParseOwnerColumn), so a Locker that predates handoffs counts the cell
// as a holder. A Locker's own incarnation is hex digits, never 'h', so no
// Locker's column is ever a handed column. An owner id without '.' gets
// "h" + the whole id after the process part's slash.
func HandedColumn(owner string) string {
	i := strings.LastIndexByte(owner, '.')
	if i < 0 {
		return OwnerPrefix + owner + "/h"
	}
	return OwnerPrefix + owner[:i] + "/h" + owner[i+1:]
}

// IsHandedFor reports whether column col, an owner cell naming owner, is
// owner's handed cell.
func IsHandedFor(col, owner string) bool { return col == HandedColumn(owner) }

// The value of a queue or owner cell is the owner id, then optional lines:
//
//	<owner>[\naccess=<IS|IX|S|SIX>][\nwake=<address>]
//
// Owner ids never contain a newline (internal/setup). An exclusive
// acquisition writes no access line, so its cells are byte for byte what a
// Locker that predates accesses writes; the wake line comes last, so a Locker
// that predates accesses, which took everything after "\nwake=" as the
// address, still finds it. Such a Locker reads an owner cell's whole value as
// its owner id and counts the cell as a holder, whatever its access: it
// treats every holder as exclusive, which excludes more than it must and
// never less.
const (
	accessInfix = "\naccess="
	wakeInfix   = "\nwake="
)

// Value renders a queue or owner cell's value for owner acquiring in access,
// with wake the address its waiter can be woken at ("" for none, and always
// for owner cells).
func Value(owner string, access lockstep.Access, wake string) []byte {
	v := owner
	if access != lockstep.Exclusive {
		v += accessInfix + access.String()
	}
	if wake != "" {
		v += wakeInfix + wake
	}
	return []byte(v)
}

// parseValue splits a queue or owner cell's value into the owner id, the
// access and the wake address. An access this version does not know reads
// as Exclusive: it conflicts with everything, as a Locker that predates
// accesses reads every holder.
func parseValue(b []byte) (owner string, access lockstep.Access, wake string) {
	v := string(b)
	v, wake, _ = strings.Cut(v, wakeInfix)
	owner, a, ok := strings.Cut(v, accessInfix)
	if ok {
		if parsed, err := lockstep.ParseAccess(a); err == nil && a == parsed.String() {
			access = parsed
		}
	}
	return owner, access, wake
}

// WakeQueueCell is QueueCell for an acquisition in access whose value also
// publishes wake, the address at which the waiter can be woken (package
// wakeup); an empty wake and Exclusive give QueueCell's plain value.
func WakeQueueCell(column, owner string, access lockstep.Access, wake string, ts int64, ttl time.Duration) lockstep.Cell {
	return lockstep.Cell{Column: column, Value: Value(owner, access, wake), Timestamp: ts, TTL: ttl}
}

// OwnerCell is the owner cell column claiming the lock for owner in access,
// written at timestamp ts with the given TTL. Its value names the owner and,
// unless Exclusive, the access.
func OwnerCell(column, owner string, access lockstep.Access, ts int64, ttl time.Duration) lockstep.Cell {
	return lockstep.Cell{Column: column, Value: Value(owner, access, ""), Timestamp: ts, TTL: ttl}
}

// FloorCell is the floor cell publishing floor v (µs), with the given TTL (0:
// none). Its write timestamp is v itself, so last-write-wins keeps the
// highest floor ever written, and a rewrite of the same value renews it.
func FloorCell(v int64, ttl time.Duration) lockstep.Cell {
	return lockstep.Cell{Column: FloorColumn, Value: EncodeFloor(v), Timestamp: v, TTL: ttl}
}

// EncodeFloor renders a floor (µs) as the floor cell's value: 8 bytes,
// big-endian, so that for non-negative floors bytewise value order (which
// breaks Cassandra's timestamp ties) is numeric order.
func EncodeFloor(t int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(t)) }

// DecodeFloor parses a floor cell's value. A value that is not 8 bytes, or
// that decodes to a negative time, is an error.
func DecodeFloor(b []byte) (int64, error) {
	if len(b) != floorBytes {
		return 0, fmt.Errorf("floor cell holds %d bytes, want %d", len(b), floorBytes)
	}
	t := int64(binary.BigEndian.Uint64(b))
	if t < 0 {
		return 0, fmt.Errorf("floor cell holds a negative time %d", t)
	}
	return t, nil
}

// QueueSlice selects what one read of a queue partition fetches from a floor
// (µs): every queue cell named at or after floor, then — by the ordering
// facts (doc.go) — every owner cell and the floor cell.
func QueueSlice(floor int64) lockstep.Slice { return lockstep.Slice{From: Stamp(floor)} }

// FloorSlice selects the floor cell alone.
func FloorSlice() lockstep.Slice {
	return lockstep.Slice{From: FloorColumn, To: FloorColumn + "\x00", Limit: 1}
}

// ParseQueueColumn parses a queue cell's column into its enqueue time (µs)
// and owner id.
func ParseQueueColumn(col string) (t int64, owner string, err error) {
	if len(col) < minQueueColumn || col[StampDigits:StampDigits+len(queueInfix)] != queueInfix {
		return 0, "", errors.New("not a queue cell: want <20-digit µs>/q/<owner>")
	}
	digits := col[:StampDigits]
	for i := range len(digits) {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, "", fmt.Errorf("queue cell time %q is not 20 decimal digits", digits)
		}
	}
	t, err = strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, "", fmt.Errorf("queue cell time %q is beyond int64", digits)
	}
	return t, col[StampDigits+len(queueInfix):], nil
}

// ParseOwnerColumn parses an owner cell's column, under OwnerPrefix or in
// the intention range (IntentionPrefix), into the Locker's process id and
// incarnation.
func ParseOwnerColumn(col string) (process, incarnation string, err error) {
	rest, ok := strings.CutPrefix(col, OwnerPrefix)
	if !ok {
		rest, ok = strings.CutPrefix(col, IntentionPrefix)
	}
	if ok {
		process, incarnation, ok = strings.Cut(rest, "/")
	}
	if !ok || process == "" || incarnation == "" || strings.Contains(incarnation, "/") {
		return "", "", fmt.Errorf("not an owner cell: want %s<process>/<incarnation> or %s<process>/<incarnation>", OwnerPrefix, IntentionPrefix)
	}
	return process, incarnation, nil
}

var (
	errEmptyOwner  = errors.New("owner cell names no owner")
	errUnknownName = errors.New("no lockstep cell is named so (queue cells: <20-digit µs>/q/<owner>; owner cells: " +
		OwnerPrefix + "<process>/<incarnation>, or " + IntentionPrefix + "<process>/<incarnation>; the floor: " + FloorColumn + "; the evidence: " + EvidenceColumn + ")")
	errStrongIntention = errors.New("an owner cell in the intention range (" + IntentionPrefix +
		") holds an access other than IS or IX: intention claims never read the range, so no Locker writes one there")
)

// Parse parses one cell of a queue partition. A cell that is none of the
// kinds, or whose value does not fit its kind, is an error: no Locker wrote
// it (doc.go, "Foreign cells"). Queue cells' values are not checked: the
// owner is in the name; the access and a wake address in the value are
// returned in Access and Wake.
func Parse(col string, value []byte) (Entry, error) {
	switch {
	case col == FloorColumn:
		f, err := DecodeFloor(value)
		if err != nil {
			return Entry{}, err
		}
		return Entry{Column: col, Kind: Floor, Floor: f}, nil
	case col == EvidenceColumn:
		v, err := DecodeEvidence(value)
		if err != nil {
			return Entry{}, err
		}
		return Entry{Column: col, Kind: Evidence, Token: v}, nil
	case strings.HasPrefix(col, OwnerPrefix) || InIntentionRange(col):
		process, _, err := ParseOwnerColumn(col)
		if err != nil {
			return Entry{}, err
		}
		owner, access, _ := parseValue(value)
		if owner == "" {
			return Entry{}, errEmptyOwner
		}
		if InIntentionRange(col) && !Intention(access) {
			return Entry{}, errStrongIntention
		}
		return Entry{Column: col, Kind: Owner, Owner: owner, Process: process, Access: access}, nil
	}
	t, owner, err := ParseQueueColumn(col)
	if err != nil {
		if col == "" || col[0] < '0' || col[0] > '9' {
			return Entry{}, errUnknownName
		}
		return Entry{}, err
	}
	_, access, wake := parseValue(value)
	return Entry{Column: col, Kind: Queue, Time: t, Owner: owner, Wake: wake, Access: access}, nil
}
