package layout

import (
	"bytes"
	"math"
	mrand "math/rand/v2"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/lockstep-go/lockstep"
)

// The names and values the algorithms have always written, to the byte (the
// same lines queuelock's TestQueueLock_WritesTheKnownBytes pins on the wire).
func TestQueue_BuildsAndParsesTheKnownNames(t *testing.T) {
	if got := QueueColumn(946684800000000, "p1.1"); got != "00000946684800000000/q/p1.1" {
		t.Errorf("QueueColumn = %q", got)
	}
	if got := QueueColumn(0, "x"); got != "00000000000000000000/q/x" {
		t.Errorf("QueueColumn(0) = %q", got)
	}
	if got := OwnerColumn("p1", 0xc4f5a58656eef510); got != "~o/p1/c4f5a58656eef510" {
		t.Errorf("OwnerColumn = %q", got)
	}
	// The incarnation queuelock's golden test draws from PCG(1, 2).
	if got := NewOwnerColumn("p1", mrand.New(mrand.NewPCG(1, 2))); got != "~o/p1/c4f5a58656eef510" {
		t.Errorf("NewOwnerColumn = %q", got)
	}
	if got := EncodeFloor(946684801000000); !bytes.Equal(got, []byte{0x00, 0x03, 0x5d, 0x01, 0x3b, 0x47, 0x22, 0x40}) {
		t.Errorf("EncodeFloor = %x", got)
	}
	c := FloorCell(946684801000000, 13*time.Second)
	if c.Column != "~~floor" || c.Timestamp != 946684801000000 || c.TTL != 13*time.Second {
		t.Errorf("FloorCell = %+v", c)
	}
	q := WakeQueueCell("00000946684800000000/q/p1.1", "p1.1", lockstep.Exclusive, "", 7, 6*time.Second)
	o := OwnerCell("~o/p1/c4f5a58656eef510", "p1.1", lockstep.Exclusive, 8, 6*time.Second)
	if string(q.Value) != "p1.1" || string(o.Value) != "p1.1" || q.Timestamp != 7 || o.TTL != 6*time.Second {
		t.Errorf("WakeQueueCell = %+v, OwnerCell = %+v", q, o)
	}

	for _, tc := range []struct {
		col   string
		value []byte
		want  Entry
	}{
		{"00000946684800000000/q/p1.1", []byte("p1.1"), Entry{Column: "00000946684800000000/q/p1.1", Kind: Queue, Time: 946684800000000, Owner: "p1.1"}},
		{"00000946684800000000/q/a/b", nil, Entry{Column: "00000946684800000000/q/a/b", Kind: Queue, Time: 946684800000000, Owner: "a/b"}},
		{"~o/p1/c4f5a58656eef510", []byte("p1.2"), Entry{Column: "~o/p1/c4f5a58656eef510", Kind: Owner, Owner: "p1.2", Process: "p1"}},
		{"~o/p1:new/00", []byte("p1:new.2"), Entry{Column: "~o/p1:new/00", Kind: Owner, Owner: "p1:new.2", Process: "p1:new"}},
		{"~~floor", EncodeFloor(5), Entry{Column: "~~floor", Kind: Floor, Floor: 5}},
	} {
		got, err := Parse(tc.col, tc.value)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q, %q) = %+v, %v; want %+v", tc.col, tc.value, got, err, tc.want)
		}
	}
}

// Cells no Locker writes are errors, never a guess.
func TestQueue_ParseRefusesForeignCells(t *testing.T) {
	for _, tc := range []struct {
		col   string
		value []byte
	}{
		{"", nil},
		{"c100", []byte("x")},
		{"0000094668480000000/q/p1.1", nil},         // 19 digits
		{"00000946684800000000/q/", nil},            // no owner
		{"00000946684800000000/o/p1.1", nil},        // not a queue cell
		{"0000094668480000000x/q/p1.1", nil},        // not digits
		{"+0000094668480000000/q/p1.1", nil},        // a sign
		{"-0000094668480000000/q/p1.1", nil},        // negative
		{"99999999999999999999/q/p1.1", nil},        // beyond int64
		{"~o/p1/c4f5a58656eef510", nil},             // owner cell naming no owner
		{"~o/p1/c4f5a58656eef510", []byte{}},        // likewise
		{"~o/p1", []byte("p1.1")},                   // no incarnation
		{"~o//c4f5a58656eef510", []byte("p1.1")},    // no process
		{"~o/p1/", []byte("p1.1")},                  // empty incarnation
		{"~o/p1/c4f5/a58656eef510", []byte("p1.1")}, // a '/' too many
		{"~~floor", nil},                            // no value
		{"~~floor", []byte{1, 2, 3}},                // not 8 bytes
		{"~~floor", EncodeFloor(-1)},                // negative
		{"~~floorx", EncodeFloor(1)},                // not the floor
		{"~p/x", []byte("x")},                       // between owners and floor
	} {
		if e, err := Parse(tc.col, tc.value); err == nil {
			t.Errorf("Parse(%q, %q) = %+v, want an error", tc.col, tc.value, e)
		}
	}
}

func genTime(t *rapid.T, label string) int64 {
	return rapid.Int64Range(0, math.MaxInt64).Draw(t, label)
}

// processID draws ids of internal/setup's alphabet: 1–255 of [A-Za-z0-9._:-].
var processID = rapid.StringMatching(`[A-Za-z0-9._:-]{1,255}`)

// ownerID draws owner ids: a process id, '.', a number — or anything
// non-empty, since a queue cell's owner is the rest of its name.
var ownerID = rapid.OneOf(rapid.StringMatching(`[A-Za-z0-9._:-]{1,255}\.[0-9]{1,6}`), rapid.StringN(1, 40, -1))

func TestQueue_RoundTrips(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tm, owner := genTime(t, "t"), ownerID.Draw(t, "owner")
		e, err := Parse(QueueColumn(tm, owner), []byte(owner))
		if err != nil || e.Kind != Queue || e.Time != tm || e.Owner != owner {
			t.Fatalf("queue cell (%d, %q) parsed as %+v, %v", tm, owner, e, err)
		}
		proc, inc := processID.Draw(t, "process"), rapid.Uint64().Draw(t, "incarnation")
		col := OwnerColumn(proc, inc)
		e, err = Parse(col, []byte(owner))
		if err != nil || e.Kind != Owner || e.Owner != owner || e.Process != proc {
			t.Fatalf("owner cell %q parsed as %+v, %v", col, e, err)
		}
		f := genTime(t, "floor")
		c := FloorCell(f, 0)
		e, err = Parse(c.Column, c.Value)
		if err != nil || e.Kind != Floor || e.Floor != f || c.Timestamp != f {
			t.Fatalf("floor cell %d parsed as %+v, %v", f, e, err)
		}
	})
}

// Ordering fact 1: Stamp order is time order, and queue columns sort by time
// first, whatever the owners.
func TestQueue_ColumnOrderIsTimeOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genTime(t, "a"), genTime(t, "b")
		if len(Stamp(a)) != StampDigits {
			t.Fatalf("Stamp(%d) = %q is not %d digits", a, Stamp(a), StampDigits)
		}
		if (Stamp(a) < Stamp(b)) != (a < b) {
			t.Fatalf("Stamp(%d) = %q, Stamp(%d) = %q: order differs", a, Stamp(a), b, Stamp(b))
		}
		oa, ob := ownerID.Draw(t, "oa"), ownerID.Draw(t, "ob")
		if a != b && (QueueColumn(a, oa) < QueueColumn(b, ob)) != (a < b) {
			t.Fatalf("QueueColumn(%d, %q) and QueueColumn(%d, %q) sort against their times", a, oa, b, ob)
		}
	})
}

// Ordering fact 2: queue cells, then owner cells, then the floor cell; so a
// slice from any floor returns every owner cell and the floor cell, and every
// queue cell named at or after the floor and none named before it.
func TestQueue_OwnersAndFloorSortAfterTheQueue(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tm, owner := genTime(t, "t"), ownerID.Draw(t, "owner")
		q := QueueColumn(tm, owner)
		o := OwnerColumn(processID.Draw(t, "process"), rapid.Uint64().Draw(t, "incarnation"))
		if !(q < o && o < FloorColumn) {
			t.Fatalf("order broken: %q, %q, %q", q, o, FloorColumn)
		}
		s := QueueSlice(genTime(t, "floor"))
		if s.To != "" || s.Limit != 0 {
			t.Fatalf("QueueSlice bounded: %+v", s)
		}
		if o < s.From || FloorColumn < s.From {
			t.Fatalf("QueueSlice %+v misses the owner cell %q or the floor cell", s, o)
		}
		if (q >= s.From) != (tm >= mustTime(t, s.From)) {
			t.Fatalf("QueueSlice from %q and queue cell %q (time %d) disagree", s.From, q, tm)
		}
	})
}

func mustTime(t *rapid.T, stamp string) int64 {
	tm, _, err := ParseQueueColumn(stamp + "/q/x")
	if err != nil {
		t.Fatalf("slice start %q is no stamp: %v", stamp, err)
	}
	return tm
}

// FloorSlice selects the floor cell and nothing else.
func TestQueue_FloorSliceSelectsTheFloorAlone(t *testing.T) {
	s := FloorSlice()
	for _, col := range []string{FloorColumn + "\x00", "~~flooq", "~o/p/00", QueueColumn(math.MaxInt64, "~")} {
		if col >= s.From && col < s.To {
			t.Errorf("FloorSlice %+v selects %q", s, col)
		}
	}
	if !(FloorColumn >= s.From && FloorColumn < s.To) || s.Limit != 1 {
		t.Errorf("FloorSlice %+v misses the floor cell", s)
	}
}

// Floor values sort as the floors they encode (the value breaks LWW ties).
func TestQueue_FloorValueOrderIsNumericOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genTime(t, "a"), genTime(t, "b")
		if (bytes.Compare(EncodeFloor(a), EncodeFloor(b)) < 0) != (a < b) {
			t.Fatalf("EncodeFloor(%d) and EncodeFloor(%d) sort against the floors", a, b)
		}
	})
}

// Whatever the bytes, Parse does not panic, and what it accepts rebuilds to
// the same column.
func FuzzParse(f *testing.F) {
	f.Add("00000946684800000000/q/p1.1", []byte("p1.1"))
	f.Add("~o/p1/c4f5a58656eef510", []byte("p1.1"))
	f.Add("~~floor", EncodeFloor(946684801000000))
	f.Add("~o/", []byte{})
	f.Add("00000000000000000000/q", []byte(nil))
	f.Fuzz(func(t *testing.T, col string, value []byte) {
		e, err := Parse(col, value)
		if err != nil {
			return
		}
		switch e.Kind {
		case Queue:
			if QueueColumn(e.Time, e.Owner) != col {
				t.Fatalf("queue cell %q rebuilds as %q", col, QueueColumn(e.Time, e.Owner))
			}
		case Owner:
			if e.Owner != string(value) || !strings.HasPrefix(col, OwnerPrefix+e.Process+"/") {
				t.Fatalf("owner cell %q=%q parsed as %+v", col, value, e)
			}
		case Floor:
			if !bytes.Equal(EncodeFloor(e.Floor), value) {
				t.Fatalf("floor cell %x parsed as %d", value, e.Floor)
			}
		default:
			t.Fatalf("Parse(%q) = kind %v", col, e.Kind)
		}
	})
}

func TestParse_QueueCellWakeAddressOldAndNew(t *testing.T) {
	col := QueueColumn(5, "p:1")
	c := WakeQueueCell(col, "p:1", lockstep.Exclusive, "10.0.0.1:7000", 1, time.Second)
	e, err := Parse(c.Column, c.Value)
	if err != nil || e.Kind != Queue || e.Owner != "p:1" || e.Wake != "10.0.0.1:7000" {
		t.Fatalf("new cell: %+v %v", e, err)
	}
	old := lockstep.Cell{Column: col, Value: []byte("p:1"), Timestamp: 1, TTL: time.Second} // as a Locker without wake-ups writes it
	e, err = Parse(old.Column, old.Value)
	if err != nil || e.Wake != "" || e.Owner != "p:1" {
		t.Fatalf("old cell: %+v %v", e, err)
	}
	if plain := WakeQueueCell(col, "p:1", lockstep.Exclusive, "", 1, time.Second); string(plain.Value) != "p:1" {
		t.Fatalf("no address must write the old value, got %q", plain.Value)
	}
}

// An access travels in the value, before a wake address: an exclusive cell
// is byte for byte what a Locker that predates accesses writes, and a Locker
// that predates accesses still finds the wake address at the end.
func TestParse_AccessInQueueAndOwnerValues(t *testing.T) {
	col := QueueColumn(5, "p:1")
	c := WakeQueueCell(col, "p:1", lockstep.IntentExclusive, "10.0.0.1:7000", 1, time.Second)
	if got := string(c.Value); got != "p:1\naccess=IX\nwake=10.0.0.1:7000" {
		t.Fatalf("queue value %q", got)
	}
	e, err := Parse(c.Column, c.Value)
	if err != nil || e.Access != lockstep.IntentExclusive || e.Wake != "10.0.0.1:7000" || e.Owner != "p:1" {
		t.Fatalf("queue cell: %+v %v", e, err)
	}
	if _, oldWake, _ := strings.Cut(string(c.Value), "\nwake="); oldWake != "10.0.0.1:7000" {
		t.Fatalf("a Locker that predates accesses would read wake address %q", oldWake)
	}
	ocol := SlotColumn(OwnerColumn("p", 1), 2)
	if ocol != "~o/p/0000000000000001.2" {
		t.Fatalf("slot column %q", ocol)
	}
	for _, a := range []lockstep.Access{lockstep.Exclusive, lockstep.Shared, lockstep.IntentShared, lockstep.IntentExclusive, lockstep.SharedIntentExclusive} {
		o := OwnerCell(ocol, "p:3", a, 1, time.Second)
		e, err := Parse(o.Column, o.Value)
		if err != nil || e.Kind != Owner || e.Owner != "p:3" || e.Access != a || e.Process != "p" {
			t.Fatalf("owner cell in %v: %+v %v", a, e, err)
		}
		if a == lockstep.Exclusive && string(o.Value) != "p:3" {
			t.Fatalf("exclusive owner value %q, want the bare owner id", o.Value)
		}
	}
	if a := AdoptColumn(OwnerColumn("p", 1)); a != "~o/p/0000000000000001.a" {
		t.Fatalf("adoption column %q", a)
	} else if e, err := Parse(a, []byte("p:3")); err != nil || e.Kind != Owner || e.Process != "p" {
		t.Fatalf("adoption owner cell: %+v %v", e, err)
	}
	// An access this version does not know conflicts with everything.
	e, err = Parse(ocol, []byte("p:3\naccess=U"))
	if err != nil || e.Access != lockstep.Exclusive || e.Owner != "p:3" {
		t.Fatalf("unknown access: %+v %v", e, err)
	}
	if _, err := Parse(ocol, []byte("\naccess=S")); err == nil {
		t.Fatal("an owner cell naming no owner must be refused")
	}
}

func TestHandedColumnParsesAsAnOwnerColumn(t *testing.T) {
	col := HandedColumn("proc-1.42")
	if col != "~o/proc-1/h42" {
		t.Fatalf("HandedColumn = %q", col)
	}
	e, err := Parse(col, Value("proc-1.42", lockstep.Exclusive, ""))
	if err != nil || e.Kind != Owner || e.Owner != "proc-1.42" || e.Process != "proc-1" {
		t.Fatalf("Parse(%q) = %+v, %v: want an owner cell of proc-1 naming proc-1.42", col, e, err)
	}
	if !IsHandedFor(col, "proc-1.42") || IsHandedFor(col, "proc-1.43") || IsHandedFor(OwnerColumn("proc-1", 0x42), "proc-1.42") {
		t.Fatal("IsHandedFor confuses columns")
	}
}
